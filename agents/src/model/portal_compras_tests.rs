//! The Compras download on rows shaped like the real 2024-01 files.

use std::path::Path;

use super::*;
use crate::model::amendment::AmendmentKind;

/// The header of `*_Compras.csv` as published.
pub(crate) const COMPRAS_HEADER: &str = "\"Número do Contrato\";\"Objeto\";\"Fundamento Legal\";\"Modalidade Compra\";\"Situação Contrato\";\"Código Órgão Superior\";\"Nome Órgão Superior\";\"Código Órgão\";\"Nome Órgão\";\"Código UG\";\"Nome UG\";\"Data Assinatura Contrato\";\"Data Publicação DOU\";\"Data Início Vigência\";\"Data Fim Vigência\";\"Código Contratado\";\"Nome Contratado\";\"Valor Inicial Compra\";\"Valor Final Compra\";\"Número Licitação\";\"Código UG Licitação\";\"Nome UG Licitação\";\"Código Modalidade Compra Licitação\";\"Modalidade Compra Licitação\"";

/// A secret contract, a contract with a CPF, and two contracts sharing one key.
pub(crate) fn compras_text() -> String {
    [
        COMPRAS_HEADER,
        "\"000342023\";\"Informação protegida por sigilo nos termos da legislação vigente\";\"\";\"Pregão - Registro de Preço\";\"Não se aplica\";\"30000\";\"Ministério da Justiça e Segurança Pública\";\"30108\";\"Polícia Federal\";\"200356\";\"SR/RJ\";\"30/12/2023\";\"12/01/2024\";\"30/12/2023\";\"30/12/2024\";\"-11\";\"Sigiloso\";\"2588,9700\";\"2588,9700\";\"000032023\";\"200370\";\"SR/SC\";\"9999\";\"Pregão - Registro de Preço\"",
        "\"000012021\";\"Objeto: LOCAÇÃO DE IMÓVEL\";\"\";\"Dispensa de Licitação\";\"Não se aplica\";\"26000\";\"Ministério da Educação\";\"26290\";\"INEP\";\"153978\";\"INEP\";\"05/01/2024\";\"10/01/2024\";\"05/01/2024\";\"04/01/2025\";\"31007465700\";\"AIRTON JOSE\";\"120000,00\";\"150000,00\";\"\";\"\";\"\";\"\";\"\"",
        "\"000012024\";\"Objeto: AQUISIÇÃO DE TRANSDUTORES\";\"\";\"Pregão\";\"Não se aplica\";\"36000\";\"Ministério da Saúde\";\"36000\";\"MS\";\"155907\";\"HU\";\"05/01/2024\";\"10/01/2024\";\"05/01/2024\";\"04/01/2025\";\"58295213002111\";\"PHILIPS\";\"193650,0000\";\"193650,0000\";\"000052023\";\"155907\";\"HU\";\"05\";\"Pregão\"",
        "\"000012024\";\"Objeto: DISPONIBILIZAÇÃO DE EQUIPAMENTO\";\"\";\"Pregão\";\"Não se aplica\";\"36000\";\"Ministério da Saúde\";\"36000\";\"MS\";\"155907\";\"HU\";\"11/01/2024\";\"15/01/2024\";\"11/01/2024\";\"10/01/2025\";\"66969262000177\";\"UNIT\";\"17585,4000\";\"17585,4000\";\"000052023\";\"155907\";\"HU\";\"05\";\"Pregão\"",
    ]
    .join("\n")
}

pub(crate) const ITEMS_TEXT: &str = "\"Código Órgão\";\"Nome Órgão\";\"Código UG\";\"Nome UG\";\"Número Contrato\";\"Código Item Compra\";\"Descrição Item Compra\";\"Descrição Complementar Item Compra\";\"Quantidade Item\";\"Valor Item\"
\"26290\";\"INEP\";\"153978\";\"INEP\";\"000012021\";\"1539780500021202000001\";\"LOCAÇÃO DE IMÓVEL\";\"undefined\";\"12\";\"10000,00\"
\"36000\";\"MS\";\"155907\";\"HU\";\"000012024\";\"1\";\"TRANSDUTOR\";\"undefined\";\"2\";\"96825,00\"";

pub(crate) const ADITIVOS_TEXT: &str = "\"Número Contrato\";\"Código Órgão Superior\";\"Nome Órgão Superior\";\"Código Órgão\";\"Nome Órgão\";\"Código UG\";\"Nome UG\";\"Número Termo Aditivo\";\"Data Publicação\";\"Objeto\"
\"000012021\";\"26000\";\"MEC\";\"26290\";\"INEP\";\"153978\";\"INEP\";\"000022024\";\"26/11/2024\";\"Objetivo: PRORROGAÇÃO DO PRAZO DE VIGÊNCIA\"
\"000012021\";\"26000\";\"MEC\";\"26290\";\"INEP\";\"153978\";\"INEP\";\"000012024\";\"11/03/2024\";\"Objetivo: ACRÉSCIMO DE SERVIÇOS\"";

fn table(text: &str) -> (ComprasFile, Table) {
    let header = crate::model::portal_csv::header_of(text);
    let kind = kind_of_header(&header).unwrap();
    (kind, Table::parse(Path::new("202401_x.csv"), text, required_columns(kind)).unwrap())
}

fn read_all() -> (Vec<Contract>, JoinReport) {
    let mut compras = Compras::default();
    for text in [compras_text().as_str(), ITEMS_TEXT, ADITIVOS_TEXT] {
        let (kind, t) = table(text);
        compras.read(kind, &t).unwrap();
    }
    compras.finish()
}

#[test]
fn each_file_of_the_download_is_recognised_by_its_header() {
    assert_eq!(table(&compras_text()).0, ComprasFile::Contracts);
    assert_eq!(table(ITEMS_TEXT).0, ComprasFile::Items);
    assert_eq!(table(ADITIVOS_TEXT).0, ComprasFile::Amendments);
    assert_eq!(kind_of_header(&["Número Contrato".to_string()]), None);
}

#[test]
fn a_secret_contract_is_read_as_published() {
    let (contracts, _) = read_all();
    let secret = &contracts[0];
    assert_eq!(
        (&*secret.id, &*secret.supplier.document, &*secret.supplier.name),
        ("200356-000342023", "-11", "Sigiloso")
    );
    assert_eq!(secret.value(), 2588.97);
    assert_eq!(&*secret.organ.code, "30000");
    assert_eq!(&*secret.process_number, "200370-9999-000032023");
    assert_eq!(secret.signed_on, chrono::NaiveDate::from_ymd_opt(2023, 12, 30));
}

#[test]
fn items_and_amendments_join_on_number_and_unit_in_date_order() {
    let (contracts, report) = read_all();
    let lease = &contracts[1];
    assert_eq!(&*lease.supplier.document, "31007465700");
    assert_eq!(lease.items.len(), 1);
    assert_eq!(&*lease.items[0].complement, "");
    assert_eq!(lease.items[0].value, 10000.0);
    let kinds: Vec<&[AmendmentKind]> = lease.amendments.iter().map(|a| a.kinds.as_slice()).collect();
    assert_eq!(kinds, vec![&[AmendmentKind::Addition][..], &[AmendmentKind::Extension][..]]);
    assert_eq!(report, JoinReport { unmatched: 0, ambiguous: 1 });
}

#[test]
fn two_contracts_sharing_a_key_get_distinct_ids_and_no_guessed_items() {
    let (contracts, _) = read_all();
    assert_eq!(&*contracts[2].id, "155907-000012024");
    assert_eq!(&*contracts[3].id, "155907-000012024-2");
    assert!(contracts[2].items.is_empty() && contracts[3].items.is_empty());
}

#[test]
fn a_contract_row_without_its_number_is_an_error_naming_the_column() {
    let text = format!(
        "{COMPRAS_HEADER}\n\"\";\"X\";\"\";\"Pregão\";\"\";\"1\";\"O\";\"1\";\"O\";\"153978\";\"U\";\"\";\"\";\"\";\"\";\"1\";\"S\";\"1,00\";\"1,00\";\"\";\"\";\"\";\"\";\"\""
    );
    let (kind, t) = table(&text);
    let e = Compras::default().read(kind, &t).err().map(|e| (e.record, e.field));
    assert_eq!(e, Some((Some("line 2".to_string()), Some("Número do Contrato".to_string()))));
}
