//! Tests of the contract-text reading: specificity, brands, entities.

use super::*;

#[test]
fn generic_objects_have_no_specific_words_and_real_ones_do() {
    assert_eq!(read("AQUISIÇÃO DE MATERIAL").specific_words, 0);
    assert_eq!(read("PRESTAÇÃO DE SERVIÇOS DIVERSOS").specific_words, 0);
    assert_eq!(read("Material de consumo").specific_words, 0);
    let real = read("AQUISIÇÃO DE MEDICAMENTOS (DIPIRONA SÓDICA 500 MG) PARA O HOSPITAL, LOTE 7");
    assert!(real.specific_words >= 4 && real.has_numbers);
}

#[test]
fn brands_count_unless_an_equivalent_is_accepted() {
    let f = read("AQUISIÇÃO DE NOTEBOOKS, MARCA DELL, EXCLUSIVAMENTE");
    assert!(f.brand_keyword && f.exclusive);
    assert_eq!(f.brands, vec!["dell"]);
    assert_eq!(f.brand_score(), 4.0);
    assert_eq!(read("NOTEBOOKS DELL OU SIMILAR").brand_score(), 0.0);
    assert_eq!(read("TONER HP OU DE MELHOR QUALIDADE").brand_score(), 0.0);
    assert_eq!(read("NOTEBOOKS HP").brand_score(), 1.0);
    assert_eq!(read("SEM ACEITAÇÃO DE SIMILARES, MARCA CANON").brand_score(), 4.0);
    assert!(read("NÃO SERÃO ACEITOS SIMILARES").exclusive && !read("MARCA CANON").exclusive);
    assert_eq!(read("LIMPEZA PREDIAL").brand_score(), 0.0);
    assert!(may_name_brand("NOTEBOOKS, MARCA DELL") && may_name_brand("toner hp"));
    assert!(!may_name_brand("LIMPEZA PREDIAL, HPX, SHELLS") && !may_name_brand("AÇÃO DELLÃ"));
}

#[test]
fn a_maker_named_for_equipment_in_place_or_an_institutions_image_is_no_brand_restriction() {
    // Real objects of the January 2024 Compras download.
    for object in [
        "CONTRATAÇÃO DE SERVIÇOS DE MANUTENÇÃO CORRETIVA, PREVENTIVA, CALIBRAÇÃO E ANÁLISE DE SEGURANÇA ELÉTRICA DE \
         VENTILADORES PULMONARES MARCA DIXTAL",
        "RENOVAÇÃO DE SUPORTE DO FABRICANTE, COM DIREITO DE ATUALIZAÇÃO DE SOFTWARE",
        "AQUISIÇÃO DE ACESSÓRIOS PARA DISPOSITIVOS MÉDICOS DA MARCA DRAGER",
        "CONTRATAÇÃO DE SERVIÇOS DE MONITORAMENTO DA MARCA DA UFABC EM REDES SOCIAIS",
    ] {
        assert_eq!(read(object).brand_score(), 0.0, "{object}");
    }
    assert_eq!(read("AQUISIÇÃO DE 02 (DOIS) SWITCHES DA MARCA: TPLINK").brand_score(), 2.0);
    assert_eq!(read("AQUISIÇÃO DE CANETA MARCA-TEXTO AMARELA").brand_score(), 0.0);
}

#[test]
fn only_what_the_object_buys_makes_it_serve_equipment_in_place() {
    // A rental with maintenance included and a purchase with a warranty buy new things.
    let rental = read("LOCAÇÃO DE VEÍCULOS SEM MOTORISTA, COM MANUTENÇÃO E SEGURO, EXCLUSIVAMENTE DA MARCA TOYOTA");
    assert!(!rental.serves_existing && rental.exclusive && rental.brand_score() > 0.0);
    let purchase =
        read("AQUISIÇÃO DE VEÍCULOS ZERO QUILÔMETRO, GARANTIA DE 12 MESES, MARCA FIAT, SEM ACEITAÇÃO DE SIMILARES");
    assert!(!purchase.serves_existing && purchase.exclusive);
    // A real object: the preamble says nothing of what is bought, the maintenance does.
    let lift = read(
        "O OBJETO DO PRESENTE INSTRUMENTO É A CONTRATAÇÃO DE SERVIÇOS COMUNS DE ENGENHARIA, PARA MANUTENÇÃO \
         PREVENTIVA E CORRETIVA DO ELEVADOR DE PASSAGEIROS DA MARCA ATLAS SCHINDLER, SEM DEDICAÇÃO EXCLUSIVA",
    );
    assert!(lift.serves_existing && !lift.exclusive);
    // Restocking is not spare parts.
    assert!(!read("REPOSIÇÃO DE ESTOQUE DE PAPEL, EXCLUSIVAMENTE DA MARCA CHAMEX").serves_existing);
    assert!(read("AQUISIÇÃO DE PEÇAS DE REPOSIÇÃO PARA VEÍCULOS FIAT").serves_existing);
}

#[test]
fn a_refusal_of_other_brands_demands_one_and_dedicated_staff_does_not() {
    assert!(read("TONER MARCA HP. NÃO SERÃO ACEITOS PRODUTOS DE OUTRAS MARCAS").exclusive);
    assert!(!read("LIMPEZA PREDIAL COM DEDICAÇÃO EXCLUSIVA DE MÃO DE OBRA, MARCA DA UNIDADE").exclusive);
}

#[test]
fn entities_are_extracted_from_free_text() {
    let e = entities(
        "Contrato com 12.345.678/0001-95 de R$ 1.234.567,89 e R$ 500,00, marca Dell, conforme Lei 14.133/2021 e \
         Decreto 11871",
    );
    assert_eq!(e.cnpjs, vec!["12345678000195"]);
    assert_eq!(e.amounts, vec![1_234_567.89, 500.0]);
    assert_eq!(e.brands, vec!["dell"]);
    assert_eq!(e.laws, vec!["lei 14133", "decreto 11871"]);
}
