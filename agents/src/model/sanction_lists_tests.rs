//! Tests of the sanctions list reader on real lines of the four formats (copied as literals
//! from real/sancoes).

use super::*;

#[test]
fn the_2018_ceis_snapshot_has_no_start_dates() {
    let csv = "cnpjcpf,nome,tipo,data_final,nome_do_orgao,uf\n\
000.058.478-93,CIRO ANTONIO LONGO,Proibição - Lei de Improbidade,15/08/2021,Tribunal de Justiça do Estado de São Paulo / 1º Grau - TJSP / CARDOSO / VARA UNICA DE CARDOSO,SP\n\
05.340.639/0001-30,EMPRESA X LTDA,Suspensão - Lei de Licitações,,Ministério da Saúde,DF\n";
    let v = sanctions_from_csv(csv.as_bytes()).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].document, "00005847893");
    assert_eq!(v[0].starts_on, None);
    assert_eq!(v[0].ends_on, NaiveDate::from_ymd_opt(2021, 8, 15));
    assert!(v[0].bars_contracting() && v[0].register == "CEIS");
    assert_eq!((v[1].document.as_str(), v[1].ends_on), ("05340639000130", None));
    assert!(v[1].authority.starts_with("Ministério da Saúde"));
}

#[test]
fn the_reduced_cnep_gets_its_dropped_zeros_back_and_is_read_from_latin1() {
    let mut bytes = b"cnpjcpf  ,nome,tipo,uf,nome_do_orgao,valor_multa\n".to_vec();
    bytes.extend_from_slice(b"8706892000152,ANA PRONELI BREMM DE CASTRO - ME,Multa - Lei da Empresa Limpa,DF,Empresa Brasileira de Infra-Estrutura Aeroportu\xe1ria - INFRAERO,21600.00\n");
    let v = sanctions_from_csv(&bytes).unwrap();
    assert_eq!(v[0].document, "08706892000152");
    assert_eq!((v[0].register.as_str(), v[0].fine), ("CNEP", Some(21_600.0)));
    assert!(v[0].authority.contains("Aeroportuária") && !v[0].bars_contracting());
}

#[test]
fn the_full_cnep_export_has_start_and_end_dates() {
    let csv = "TIPO DE PESSOA,CPF OU CNPJ DO SANCIONADO,NOME INFORMADO PELO ÓRGÃO SANCIONADOR,RAZÃO SOCIAL - CADASTRO RECEITA,NOME FANTASIA - CADASTRO RECEITA,NÚMERO DO PROCESSO,TIPO SANÇÃO,DATA INÍCIO SANÇÃO,DATA FINAL SANÇÃO,ÓRGÃO SANCIONADOR,UF ÓRGÃO SANCIONADOR,ORIGEM INFORMAÇÕES,DATA ORIGEM INFORMAÇÕES,DATA PUBLICAÇÃO,PUBLICAÇÃO,DETALHAMENTO,VALOR DA MULTA,FUNDAMENTAÇÃO LEGAL\n\
J,19849176000140,PARANÁ CAFETERIA LTDA - EPP,PARANA CAFETERIA LTDA,DELTAEXPRESSO,TC 02.2017.007.0084,Multa - Lei 12.846/13,19/05/2021,16/05/2023,Empresa Brasileira de Infra-Estrutura Aeroportuária - INFRAERO,DF,X,28/07/2021,19/05/2021,DOU,NA,4032,\"Art. 6, inciso I, Lei 12846/2013\"\n\
J,33059908000120,CR Almeida S/A Engenharia de Obras,C R ALMEIDA,NA,PAR 570981/2017,Multa - Lei 12.846/13,26/07/2021,NA,Controladoria Geral do Estado de Mato Grosso,MT,X,27/07/2021,26/07/2021,DOE,NA,96170604.55,\"Art. 6, inciso I, Lei 12846/2013\"\n";
    let v = sanctions_from_csv(csv.as_bytes()).unwrap();
    assert_eq!(v[0].starts_on, NaiveDate::from_ymd_opt(2021, 5, 19));
    assert_eq!(v[0].ends_on, NaiveDate::from_ymd_opt(2023, 5, 16));
    assert_eq!(v[1].ends_on, None);
    assert_eq!((v[1].register.as_str(), v[1].fine), ("CNEP", Some(96_170_604.55)));
    assert_eq!(v[0].process_number, "TC 02.2017.007.0084");
}

#[test]
fn the_minas_gerais_list_keeps_the_conduct_and_is_a_state_sanction() {
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend_from_slice("sei;numero;ano;portaria;data_publicacao;orgao_instaurador;orgao_lesado;empresa_processada;tipo_societario;cnpj;conuta;data_decisao;decisao;fase;valor_multa\n\
1520.01.0004459/2019-09;1;2015;1;2015-09-19;CGE;SEESP;BRASFITNESS COMERCIO DE ARTIGOS ESPORTIVOS LTDA ME;SOCIEDADE LIMITADA - ME/EPP;11.753.865/0001-45;Ajuste entre empresas para direcionar contratação;2017-10-11;Multa e P.Ext. de decisão condenatória;TRANSITADO EM JULGADO;608016,54\n".as_bytes());
    let v = sanctions_from_csv(&bytes).unwrap();
    assert_eq!(v[0].document, "11753865000145");
    assert_eq!(v[0].starts_on, NaiveDate::from_ymd_opt(2017, 10, 11));
    assert_eq!(v[0].fine, Some(608_016.54));
    assert!(v[0].legal_basis.contains("Ajuste entre empresas") && !v[0].bars_contracting());
    assert!(v[0].authority.contains("Estado de Minas Gerais"));
    assert!(sanctions_from_csv(b"a,b\n1,2\n").is_err());
}

#[test]
fn the_lists_are_recognised_by_their_headers() {
    let h = |s: &str| s.split([',', ';']).map(str::to_string).collect::<Vec<_>>();
    assert!(is_sanctions_list(&h("cnpjcpf,nome,tipo,data_final,nome_do_orgao,uf")));
    assert!(is_sanctions_list(&h("cnpjcpf  ,nome,tipo,uf,nome_do_orgao,valor_multa")));
    assert!(is_sanctions_list(&h(
        "TIPO DE PESSOA,CPF OU CNPJ DO SANCIONADO,TIPO SANÇÃO,DATA INÍCIO SANÇÃO,DATA FINAL SANÇÃO"
    )));
    assert!(is_sanctions_list(&h("\u{feff}sei;numero;cnpj;conuta;data_decisao;decisao")));
    assert!(!is_sanctions_list(&h("Número do Contrato;Objeto;Fundamento Legal")));
}
