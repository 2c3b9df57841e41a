//! The amendment classifier on lines of the real Portal TermoAditivo file (2024-01) and the
//! Contratos.gov.br histories of the DPU.

use super::AmendmentKind::{Addition, Extension, Other, Readjustment, Rebalance, SupplierChange, Suppression};
use super::*;

#[test]
fn a_portal_acrescimo_line_is_an_addition() {
    let kinds = kinds_from_text(
        "Objetivo: ACRÉSCIMO DE 2 POSTOS DE ASSISTENTE ADMINISTRATIVO PLENO E DE 4 POSTOS DE AUXILIAR ADMINISTRATIVO",
    );
    assert_eq!(kinds, vec![Addition]);
}

#[test]
fn a_prorrogacao_is_an_extension_and_not_an_addition() {
    assert_eq!(kinds_from_text("Objetivo: PRORROGAR POR 12 (DOZE) MESES O PRAZO DE VIGÊNCIA"), vec![Extension]);
    assert_eq!(
        kinds_from_text(
            "Objetivo: PRORROGAÇÃO DO PRAZO DE VIGÊNCIA DO CONTRATO Nº 42/ANAC/2023, POR 12 (DOZE) MESES ADICIONAIS."
        ),
        vec![Extension]
    );
}

#[test]
fn one_line_may_extend_and_add_or_add_and_suppress() {
    assert_eq!(
        kinds_from_text("Objetivo: PRORROGAÇÃO DO PRAZO DE VIGÊNCIA E O ACRÉSCIMO DE SERVIÇOS"),
        vec![Addition, Extension]
    );
    assert_eq!(
        kinds_from_text("Objetivo: SUPRIMIR O VALOR DO CONTRATO EM 9,59%; ACRESCER O VALOR DO CONTRATO EM 6,03%"),
        vec![Addition, Suppression]
    );
}

#[test]
fn a_negated_stem_is_not_counted() {
    assert_eq!(kinds_from_text("PRORROGAÇÃO DA VIGÊNCIA SEM REAJUSTE"), vec![Extension]);
    assert_eq!(kinds_from_text("prorrogação sem ônus ou acréscimo de valor"), vec![Extension]);
    assert_eq!(kinds_from_text("NÃO HAVERÁ ACRÉSCIMO"), vec![]);
}

#[test]
fn readjustments_and_repactuacoes_are_recognised_by_stem_and_by_index_name() {
    let line = "UTILIZANDO-SE O ÍNDICE IPC-A (IBGE), ACUMULADO DE JULHO DE 2023 A JUNHO DE 2024, O CONTRATO N.º \
                89/2017 DEVE SER REAJUSTADO EM 4,227580%";
    assert_eq!(kinds_from_text(line), vec![Readjustment]);
    assert_eq!(kinds_from_text("REPACTUAÇÃO DOS CUSTOS DA MÃO DE OBRA"), vec![Rebalance]);
    assert_eq!(kinds_from_text("REEQUILÍBRIO ECONÔMICO-FINANCEIRO"), vec![Rebalance]);
    assert_eq!(kinds_from_text("ALTERAÇÃO DA RAZÃO SOCIAL DA CONTRATADA"), vec![SupplierChange]);
}

#[test]
fn an_apostilamento_is_never_an_addition_whatever_its_text() {
    let line = "EM RAZÃO DA CONVENÇÃO COLETIVA DE TRABALHO Nº SP001628/2022, REAJUSTA-SE O PREÇO DOS SALÁRIOS";
    assert_eq!(apostille_kinds(line), vec![Readjustment]);
    assert_eq!(apostille_kinds("ACRÉSCIMO DE EMPENHO PARA O EXERCÍCIO"), vec![Other]);
    assert_eq!(apostille_kinds(""), vec![Other]);
}

#[test]
fn a_qualified_prorrogacao_whose_value_grew_is_not_an_addition() {
    // DPU, contract 036/2021: ticked VIGÊNCIA and ACRÉSCIMO / SUPRESSÃO, the text only extends.
    let text = "PRORROGAR O PRAZO DE VIGÊNCIA DO CONTRATO Nº 036/2021, POR MAIS 12 (MESES) MESES, A CONTAR DE \
                15/04/2024 A 14/04/2025, COM FULCRO NO ARTIGO 57, INCISO II, DA LEI N° 8.666/93.";
    let kinds = kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO", "VIGÊNCIA"], text, Some(73_388.40));
    assert_eq!(kinds, vec![Extension]);
}

#[test]
fn a_qualified_prorrogacao_with_a_supressao_in_its_text_is_both() {
    let text = "PRORROGAR O PRAZO DE VIGÊNCIA DO CONTRATO Nº 058/2023, POR MAIS 12 (DOZE) MESES; SUPRESSÃO DE 0,56% \
                DO VALOR DO PRESENTE CONTRATO, EXCLUINDO O ITEM 7 E 8.";
    let kinds = kinds_from_qualification(&["VIGÊNCIA", "ACRÉSCIMO / SUPRESSÃO"], text, None);
    assert_eq!(kinds, vec![Suppression, Extension]);
}

#[test]
fn an_acrescimo_supressao_alone_is_decided_by_the_value_change() {
    let text =
        "O PRESENTE TERMO ADITIVO TEM POR OBJETO READEQUAÇÃO DO QUANTITATIVO DE POSTOS DE AUXILIAR ADMINISTRATIVO";
    assert_eq!(kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO"], text, Some(120_000.0)), vec![Addition]);
    assert_eq!(kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO"], text, Some(-5_000.0)), vec![Suppression]);
    assert_eq!(kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO"], text, None), vec![]);
}

#[test]
fn a_reajuste_ticked_with_acrescimo_supressao_is_a_readjustment() {
    let text = "O PRESENTE TERMO ADITIVO TEM POR OBJETO REDUZIR O VALOR MENSAL DA LOCAÇÃO A PARTIR DE 01/12/2022, POR \
                ACORDO DAS PARTES.";
    let kinds = kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO", "REAJUSTE", "INFORMATIVO"], text, Some(-90_000.0));
    assert_eq!(kinds, vec![Readjustment]);
}

#[test]
fn an_informative_term_is_other_and_other_gives_way_to_real_kinds() {
    let text = "O PRESENTE TERMO ADITIVO TEM POR OBJETO A REPACTUAÇÃO DOS VALORES DOS POSTOS";
    assert_eq!(kinds_from_qualification(&["INFORMATIVO"], "ALTERAÇÃO DO ENDEREÇO DA CONTRATADA", None), vec![Other]);
    assert_eq!(kinds_from_qualification(&["INFORMATIVO"], text, None), vec![Rebalance]);
    assert_eq!(kinds_from_qualification(&["FORNECEDOR", "INFORMATIVO"], "", None), vec![SupplierChange]);
}

#[test]
fn a_retification_is_informative_whatever_it_quotes() {
    let text = "RETIFICAR PUBLICAÇÃO DO EXTRATO DO 2º TERMO ADITIVO AO CONTRATO 67/2019. ONDE SE LÊ: ACRÉSCIMO DE \
                25%, LEIA-SE: ACRÉSCIMO DE 20%";
    assert_eq!(kinds_from_text(text), vec![Other]);
    assert_eq!(kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO", "FORNECEDOR"], text, Some(1000.0)), vec![Other]);
    assert_eq!(kinds_from_text("ACRÉSCIMO DE 10% E RETIFICAÇÃO DA CLÁUSULA SEGUNDA"), vec![Addition]);
}

#[test]
fn a_value_change_counts_as_an_addition_only_when_the_text_speaks_of_quantities() {
    // DPU: a lease whose payment terms change, ticked ACRÉSCIMO / SUPRESSÃO, value up.
    let text = "ALTERAR A FORMA DE PAGAMENTO DOS VALORES LOCATÍCIOS DISCRIMINADOS NO ANEXO I, EM RAZÃO DO FALECIMENTO \
                DO COPROPRIETÁRIO DO IMÓVEL";
    assert_eq!(kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO"], text, Some(50_000.0)), vec![]);
    let quantities = "I. READEQUAR O QUANTITATIVO DE DIÁRIAS CONTRATADAS, DE MODO QUE CADA UNIDADE POSSUA 36 DIÁRIAS";
    assert_eq!(kinds_from_qualification(&["ACRÉSCIMO / SUPRESSÃO"], quantities, Some(50_000.0)), vec![Addition]);
}
