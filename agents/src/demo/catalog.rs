//! What the demo data buys: per object category, its value distribution (log-normal median and
//! sigma), its weight in the mix, object text templates with their item lists, and supplier
//! name patterns.

pub use super::trade::Category;

/// One object category of the demo data.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The trade it stands for.
    pub category: Category,
    /// Median contract value in R$.
    pub median: f64,
    /// Sigma of ln(value). Clean values never exceed `median * e^(2 sigma)` (the reference
    /// price ceiling of a bid; see [`super::mix::CEILING_Z`]).
    pub sigma: f64,
    /// Weight in the overall mix.
    pub weight: f64,
    /// Market price of one unit of a typical item (R$); each item's own market price is a fixed
    /// multiple of it ([`market_price`]).
    pub unit_price: f64,
    /// Object text templates; slots: `{B}` (boilerplate), `{ITENS}`, `{UG}`, `{CIDADE}`, `{QTD}`, `{MESES}`, `{REF}`,
    /// `{LOTE}`.
    pub templates: &'static [&'static str],
    /// Items drawn into `{ITENS}`.
    pub items: &'static [&'static str],
    /// Supplier name patterns; `{N}` is replaced by a name.
    pub supplier_patterns: &'static [&'static str],
}

/// Every category generated, in [`Category`] order (without `Outros`).
pub static PROFILES: &[Profile] = &[
    Profile {
        category: Category::Medicamentos,
        median: 180_000.0,
        sigma: 0.6,
        weight: 0.12,
        unit_price: 14.0,
        templates: &[
            "AQUISIÇÃO DE MEDICAMENTOS DA ATENÇÃO ESPECIALIZADA ({ITENS}) PARA ATENDIMENTO À DEMANDA DA {UG}, EM {CIDADE}, QUANTIDADE ESTIMADA DE {QTD} UNIDADES, LOTE {LOTE}, CONFORME ESPECIFICAÇÕES DO TERMO DE REFERÊNCIA Nº {REF}",
            "REGISTRO DE PREÇOS PARA EVENTUAL AQUISIÇÃO DE MEDICAMENTOS ({ITENS}) DESTINADOS À {UG} ({CIDADE}), ENTREGA PARCELADA EM {MESES} MESES, {QTD} FRASCOS E COMPRIMIDOS, ITEM {LOTE} DO EDITAL Nº {REF}",
        ],
        items: &[
            "DIPIRONA SÓDICA 500 MG",
            "AMOXICILINA 500 MG",
            "INSULINA HUMANA NPH",
            "OMEPRAZOL 20 MG",
            "LOSARTANA POTÁSSICA 50 MG",
            "CEFTRIAXONA 1 G",
            "ENOXAPARINA SÓDICA 40 MG",
            "SALBUTAMOL SPRAY",
            "METFORMINA 850 MG",
            "SINVASTATINA 20 MG",
            "HIDROCORTISONA 100 MG",
            "MORFINA 10 MG",
        ],
        supplier_patterns: &["{N} DISTRIBUIDORA DE MEDICAMENTOS LTDA", "{N} FARMACÊUTICA S.A.", "DROGARIA {N} LTDA"],
    },
    Profile {
        category: Category::Obras,
        median: 1_200_000.0,
        sigma: 0.6,
        weight: 0.06,
        unit_price: 2_100.0,
        templates: &[
            "EXECUÇÃO DE OBRA DE REFORMA E ADEQUAÇÃO ({ITENS}) DO EDIFÍCIO DA {UG}, EM {CIDADE}, COM ÁREA DE {QTD} M2, PRAZO DE EXECUÇÃO DE {MESES} MESES, LOTE {LOTE}, CONFORME PROJETO BÁSICO Nº {REF}",
            "CONTRATAÇÃO DE EMPRESA DE ENGENHARIA PARA CONSTRUÇÃO E AMPLIAÇÃO ({ITENS}) DE INSTALAÇÕES DA {UG} NO MUNICÍPIO DE {CIDADE}, {QTD} M2 DE ÁREA CONSTRUÍDA, {MESES} MESES, ETAPA {LOTE}, PROJETO Nº {REF}",
        ],
        items: &[
            "COBERTURA METÁLICA",
            "INSTALAÇÕES ELÉTRICAS",
            "IMPERMEABILIZAÇÃO DE LAJES",
            "ACESSIBILIDADE",
            "FACHADA VENTILADA",
            "SISTEMA DE COMBATE A INCÊNDIO",
            "PAVIMENTAÇÃO DO ESTACIONAMENTO",
            "SUBESTAÇÃO DE ENERGIA",
            "CLIMATIZAÇÃO CENTRAL",
            "REDE HIDROSSANITÁRIA",
            "ELEVADORES",
            "ESTRUTURA DE CONCRETO",
        ],
        supplier_patterns: &["CONSTRUTORA {N} LTDA", "{N} ENGENHARIA E CONSTRUÇÕES LTDA", "{N} OBRAS E SERVIÇOS S.A."],
    },
    Profile {
        category: Category::Limpeza,
        median: 420_000.0,
        sigma: 0.55,
        weight: 0.09,
        unit_price: 11.0,
        templates: &[
            "SERVIÇOS CONTINUADOS DE LIMPEZA, CONSERVAÇÃO E HIGIENIZAÇÃO ({ITENS}) NAS DEPENDÊNCIAS DA {UG}, EM {CIDADE}, ÁREA DE {QTD} M2, POR {MESES} MESES, LOTE {LOTE}, COM FORNECIMENTO DE MATERIAIS, TERMO DE REFERÊNCIA Nº {REF}",
            "{B} LIMPEZA E CONSERVAÇÃO PREDIAL ({ITENS}), COM DEDICAÇÃO EXCLUSIVA DE MÃO DE OBRA, PARA A {UG} ({CIDADE}), {QTD} M2, VIGÊNCIA DE {MESES} MESES, POSTO {LOTE}, EDITAL Nº {REF}",
        ],
        items: &[
            "ÁREAS INTERNAS",
            "ÁREAS EXTERNAS",
            "ESQUADRIAS",
            "FACHADAS ENVIDRAÇADAS",
            "ÁREAS HOSPITALARES CRÍTICAS",
            "COPEIRAGEM",
            "JARDINAGEM",
            "RECEPÇÃO",
            "DESINSETIZAÇÃO",
            "COLETA SELETIVA",
            "LAVANDERIA",
        ],
        supplier_patterns: &["{N} SERVIÇOS GERAIS LTDA", "{N} CONSERVAÇÃO E LIMPEZA EIRELI", "LIMPADORA {N} LTDA"],
    },
    Profile {
        category: Category::Vigilancia,
        median: 600_000.0,
        sigma: 0.55,
        weight: 0.06,
        unit_price: 48.0,
        templates: &[
            "{B} VIGILÂNCIA PATRIMONIAL ARMADA E DESARMADA ({ITENS}) NAS INSTALAÇÕES DA {UG}, EM {CIDADE}, {QTD} HORAS MENSAIS, POR {MESES} MESES, LOTE {LOTE}, CONFORME TERMO DE REFERÊNCIA Nº {REF}",
            "VIGILÂNCIA ELETRÔNICA E PRESENCIAL ({ITENS}) PARA A {UG} NO MUNICÍPIO DE {CIDADE}, COM {QTD} HORAS DE MONITORAMENTO, VIGÊNCIA DE {MESES} MESES, POSTO {LOTE}, EDITAL Nº {REF}",
        ],
        items: &[
            "POSTOS DIURNOS 12X36",
            "POSTOS NOTURNOS 12X36",
            "SUPERVISÃO MOTORIZADA",
            "CIRCUITO FECHADO DE TV",
            "CONTROLE DE ACESSO",
            "RONDA ARMADA",
            "BRIGADA DE INCÊNDIO",
            "ALARMES MONITORADOS",
            "PORTARIA",
            "ESCOLTA DE VALORES",
        ],
        supplier_patterns: &["{N} SEGURANÇA E VIGILÂNCIA LTDA", "VIGILÂNCIA {N} EIRELI", "{N} SEGURANÇA PRIVADA S.A."],
    },
    Profile {
        category: Category::Ti,
        median: 350_000.0,
        sigma: 0.6,
        weight: 0.10,
        unit_price: 950.0,
        templates: &[
            "FORNECIMENTO DE LICENÇAS DE SOFTWARE E SUPORTE TÉCNICO ({ITENS}) PARA A {UG}, EM {CIDADE}, {QTD} USUÁRIOS, SUBSCRIÇÃO DE {MESES} MESES, LOTE {LOTE}, CONFORME ESTUDO TÉCNICO PRELIMINAR Nº {REF}",
            "{B} TECNOLOGIA DA INFORMAÇÃO ({ITENS}) SOB DEMANDA PARA A {UG} ({CIDADE}), ESTIMATIVA DE {QTD} UNIDADES DE SERVIÇO TÉCNICO, {MESES} MESES, ITEM {LOTE}, TERMO DE REFERÊNCIA Nº {REF}",
        ],
        items: &[
            "SISTEMA DE GESTÃO DOCUMENTAL",
            "BANCO DE DADOS CORPORATIVO",
            "ANTIVÍRUS E ENDPOINT",
            "SERVIÇOS EM NUVEM",
            "SUÍTE DE ESCRITÓRIO",
            "FÁBRICA DE SOFTWARE",
            "CENTRAL DE SERVIÇOS",
            "FIREWALL DE NOVA GERAÇÃO",
            "BACKUP CORPORATIVO",
            "VIRTUALIZAÇÃO DE SERVIDORES",
            "BUSINESS INTELLIGENCE",
        ],
        supplier_patterns: &["{N} TECNOLOGIA DA INFORMAÇÃO LTDA", "{N} SISTEMAS S.A.", "{N} SOLUÇÕES EM TI LTDA"],
    },
    Profile {
        category: Category::Veiculos,
        median: 260_000.0,
        sigma: 0.6,
        weight: 0.06,
        unit_price: 60_000.0,
        templates: &[
            "LOCAÇÃO DE VEÍCULOS ({ITENS}) SEM MOTORISTA, COM MANUTENÇÃO E SEGURO, PARA A {UG}, EM {CIDADE}, FRANQUIA DE {QTD} KM MENSAIS, POR {MESES} MESES, LOTE {LOTE}, PREGÃO Nº {REF}",
            "AQUISIÇÃO DE VEÍCULOS AUTOMOTORES ZERO QUILÔMETRO ({ITENS}) PARA A FROTA DA {UG} ({CIDADE}), {QTD} UNIDADES, GARANTIA DE {MESES} MESES, ITEM {LOTE}, PROCESSO DE COMPRA Nº {REF}",
        ],
        items: &[
            "SEDAN EXECUTIVO",
            "PICAPE 4X4 CABINE DUPLA",
            "VAN DE PASSAGEIROS",
            "HATCH COMPACTO",
            "CAMINHÃO TOCO",
            "UTILITÁRIO FURGÃO",
            "MOTOCICLETA 300 CC",
            "MICRO-ÔNIBUS",
            "SUV ELÉTRICO",
            "AMBULÂNCIA TIPO B",
        ],
        supplier_patterns: &["{N} LOCADORA DE VEÍCULOS LTDA", "{N} VEÍCULOS E PEÇAS S.A.", "AUTO {N} LTDA"],
    },
    Profile {
        category: Category::Alimentacao,
        median: 200_000.0,
        sigma: 0.6,
        weight: 0.08,
        unit_price: 22.0,
        templates: &[
            "FORNECIMENTO DE ALIMENTAÇÃO PREPARADA ({ITENS}) PARA A {UG}, EM {CIDADE}, ESTIMATIVA DE {QTD} REFEIÇÕES, POR {MESES} MESES, LOTE {LOTE}, CONFORME TERMO DE REFERÊNCIA Nº {REF}",
            "AQUISIÇÃO DE GÊNEROS ALIMENTÍCIOS PERECÍVEIS E NÃO PERECÍVEIS ({ITENS}) PARA A {UG} ({CIDADE}), {QTD} QUILOS, ENTREGAS SEMANAIS DURANTE {MESES} MESES, GRUPO {LOTE}, ATA Nº {REF}",
        ],
        items: &[
            "ARROZ TIPO 1",
            "FEIJÃO CARIOCA",
            "CARNE BOVINA RESFRIADA",
            "FRANGO CONGELADO",
            "LEITE INTEGRAL",
            "FRUTAS DA ESTAÇÃO",
            "HORTALIÇAS",
            "PÃO FRANCÊS",
            "CAFÉ TORRADO",
            "REFEIÇÕES TRANSPORTADAS",
            "LANCHES",
            "ÓLEO DE SOJA",
        ],
        supplier_patterns: &[
            "{N} ALIMENTOS LTDA",
            "RESTAURANTE E REFEIÇÕES {N} EIRELI",
            "{N} COMÉRCIO DE GÊNEROS ALIMENTÍCIOS LTDA",
        ],
    },
    Profile {
        category: Category::Consultoria,
        median: 300_000.0,
        sigma: 0.6,
        weight: 0.05,
        unit_price: 280.0,
        templates: &[
            "{B} CONSULTORIA ESPECIALIZADA ({ITENS}) PARA APOIO TÉCNICO À {UG}, EM {CIDADE}, ESTIMATIVA DE {QTD} HORAS TÉCNICAS, PRAZO DE {MESES} MESES, PRODUTO {LOTE}, CONFORME TERMO DE REFERÊNCIA Nº {REF}",
            "ASSESSORIA TÉCNICA E CONSULTORIA ({ITENS}) PRESTADA À {UG} ({CIDADE}), {QTD} HORAS DE ESPECIALISTAS, {MESES} MESES DE EXECUÇÃO, ENTREGA {LOTE}, PROJETO Nº {REF}",
        ],
        items: &[
            "GESTÃO DE RISCOS",
            "MODELAGEM DE PROCESSOS",
            "AVALIAÇÃO DE POLÍTICAS PÚBLICAS",
            "ESTUDOS DE VIABILIDADE",
            "GOVERNANÇA DE DADOS",
            "PLANEJAMENTO ESTRATÉGICO",
            "AUDITORIA DE SISTEMAS",
            "LICENCIAMENTO AMBIENTAL",
            "CAPACITAÇÃO DE SERVIDORES",
            "PESQUISA DE OPINIÃO",
        ],
        supplier_patterns: &[
            "{N} CONSULTORIA E ASSESSORIA LTDA",
            "INSTITUTO {N} DE GESTÃO",
            "{N} ASSOCIADOS CONSULTORES LTDA",
        ],
    },
    Profile {
        category: Category::Expediente,
        median: 28_000.0,
        sigma: 0.6,
        weight: 0.14,
        unit_price: 9.0,
        templates: &[
            "AQUISIÇÃO DE MATERIAL DE EXPEDIENTE ({ITENS}) PARA ATENDER ÀS NECESSIDADES DA {UG}, EM {CIDADE}, {QTD} UNIDADES, ENTREGA EM ATÉ {MESES} MESES, ITEM {LOTE}, CONFORME REQUISIÇÃO Nº {REF}",
            "FORNECIMENTO DE MATERIAIS DE ESCRITÓRIO E PAPELARIA ({ITENS}) À {UG} ({CIDADE}), QUANTIDADE DE {QTD} ITENS, CONSUMO ESTIMADO PARA {MESES} MESES, GRUPO {LOTE}, PEDIDO Nº {REF}",
        ],
        items: &[
            "PAPEL A4 75 G",
            "CANETAS ESFEROGRÁFICAS",
            "PASTAS SUSPENSAS",
            "GRAMPEADORES",
            "TONER PARA IMPRESSORA",
            "ENVELOPES PARDOS",
            "BLOCOS DE NOTAS",
            "CLIPES METÁLICOS",
            "ETIQUETAS ADESIVAS",
            "LÁPIS GRAFITE",
            "ARQUIVOS DE PAPELÃO",
            "FITAS ADESIVAS",
        ],
        supplier_patterns: &[
            "{N} PAPELARIA E INFORMÁTICA LTDA",
            "COMERCIAL {N} EIRELI",
            "{N} MATERIAIS DE ESCRITÓRIO LTDA",
        ],
    },
    Profile {
        category: Category::EquipamentosHospitalares,
        median: 380_000.0,
        sigma: 0.6,
        weight: 0.05,
        unit_price: 15_000.0,
        templates: &[
            "AQUISIÇÃO DE EQUIPAMENTOS HOSPITALARES ({ITENS}) PARA AS UNIDADES DA {UG}, EM {CIDADE}, {QTD} UNIDADES COM INSTALAÇÃO, GARANTIA DE {MESES} MESES, LOTE {LOTE}, CONFORME TERMO DE REFERÊNCIA Nº {REF}",
            "FORNECIMENTO DE EQUIPAMENTOS MÉDICO-HOSPITALARES ({ITENS}) COM TREINAMENTO DE OPERADORES PARA A {UG} ({CIDADE}), {QTD} APARELHOS, ASSISTÊNCIA TÉCNICA POR {MESES} MESES, ITEM {LOTE}, EDITAL Nº {REF}",
        ],
        items: &[
            "MONITORES MULTIPARAMÉTRICOS",
            "VENTILADORES PULMONARES",
            "DESFIBRILADORES",
            "AUTOCLAVES",
            "BOMBAS DE INFUSÃO",
            "CAMAS HOSPITALARES ELÉTRICAS",
            "ULTRASSOM PORTÁTIL",
            "ELETROCARDIÓGRAFOS",
            "FOCOS CIRÚRGICOS",
            "INCUBADORAS NEONATAIS",
            "MESAS CIRÚRGICAS",
        ],
        supplier_patterns: &["{N} EQUIPAMENTOS MÉDICOS LTDA", "{N} HOSPITALAR S.A.", "{N} TECNOLOGIA MÉDICA LTDA"],
    },
    Profile {
        category: Category::Combustiveis,
        median: 150_000.0,
        sigma: 0.6,
        weight: 0.05,
        unit_price: 6.2,
        templates: &[
            "FORNECIMENTO DE COMBUSTÍVEIS ({ITENS}) PARA A FROTA DA {UG}, EM {CIDADE}, ESTIMATIVA DE {QTD} LITROS, POR {MESES} MESES, LOTE {LOTE}, MEDIANTE CARTÃO MAGNÉTICO, TERMO DE REFERÊNCIA Nº {REF}",
            "AQUISIÇÃO DE COMBUSTÍVEIS E LUBRIFICANTES ({ITENS}) A GRANEL PARA A {UG} ({CIDADE}), {QTD} LITROS, ENTREGAS DURANTE {MESES} MESES, ITEM {LOTE}, PREGÃO Nº {REF}",
        ],
        items: &[
            "GASOLINA COMUM",
            "ÓLEO DIESEL S10",
            "ETANOL HIDRATADO",
            "QUEROSENE DE AVIAÇÃO",
            "ÓLEO LUBRIFICANTE",
            "ARLA 32",
            "GÁS NATURAL VEICULAR",
            "GASOLINA ADITIVADA",
            "ÓLEO DIESEL MARÍTIMO",
            "GRAXA INDUSTRIAL",
        ],
        supplier_patterns: &["POSTO {N} LTDA", "{N} DISTRIBUIDORA DE PETRÓLEO LTDA", "{N} COMBUSTÍVEIS S.A."],
    },
];

/// Words that make supplier names.
pub static NAME_WORDS: &[&str] = &[
    "ALVORADA",
    "PLANALTO",
    "HORIZONTE",
    "SANTA CRUZ",
    "BOA VISTA",
    "NOVA ERA",
    "PIONEIRA",
    "MERIDIONAL",
    "ATLÂNTICO",
    "CERRADO",
    "IPÊ",
    "JATOBÁ",
    "AROEIRA",
    "CAPIBARIBE",
    "TAPAJÓS",
    "XINGU",
    "ARAGUAIA",
    "SERRA AZUL",
    "VALE VERDE",
    "RIO BRANCO",
    "ESTRELA",
    "UNIÃO",
    "PROGRESSO",
    "CONFIANÇA",
    "ALIANÇA",
    "VANGUARDA",
    "MONTE CARMELO",
    "SÃO JORGE",
    "SÃO BENTO",
    "IGUAÇU",
    "POTIGUAR",
    "GUARANI",
    "TUPINAMBÁ",
    "MANTIQUEIRA",
    "BORBOREMA",
    "CARAJÁS",
    "PAMPA",
    "SERTÃO",
    "LITORAL",
    "BANDEIRANTE",
    "CAIÇARA",
    "MARAJÓ",
];

/// The boilerplate service contracts start with in real data (the `{B}` slot).
pub const BOILERPLATE: &str = "CONTRATAÇÃO DE EMPRESA ESPECIALIZADA NA PRESTAÇÃO DE SERVIÇOS DE";

/// The market unit price of item `k` of a profile: the price peers pay, fixed per item.
pub fn market_price(p: &Profile, k: usize) -> f64 {
    let step = ((k * 7) % 11) as f64 / 2.0 - 2.5;
    (p.unit_price * 2f64.powf(step) * 100.0).round() / 100.0
}

/// Expected contract value of a profile (mean of its log-normal).
pub fn mean_value(p: &Profile) -> f64 {
    p.median * (p.sigma * p.sigma / 2.0).exp()
}
