//! The trades the demo data buys from, with what the law makes of them (engineering value
//! limits, continuing services renewed by prorrogação).

/// The trades the demo data buys from, as the generator knows them (its own list, independent of
/// any lexicon the detectors use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Medicines.
    Medicamentos,
    /// Construction works and renovations.
    Obras,
    /// Cleaning services.
    Limpeza,
    /// Security guards.
    Vigilancia,
    /// Software and IT services.
    Ti,
    /// Vehicles.
    Veiculos,
    /// Food and meals.
    Alimentacao,
    /// Consulting.
    Consultoria,
    /// Office supplies.
    Expediente,
    /// Hospital equipment.
    EquipamentosHospitalares,
    /// Fuel.
    Combustiveis,
}

impl Category {
    /// A lower-case name for texts.
    pub fn label(self) -> &'static str {
        match self {
            Category::Medicamentos => "medicamentos",
            Category::Obras => "obras e reformas",
            Category::Limpeza => "limpeza e conservação",
            Category::Vigilancia => "vigilância",
            Category::Ti => "software e TI",
            Category::Veiculos => "veículos",
            Category::Alimentacao => "alimentação",
            Category::Consultoria => "consultoria",
            Category::Expediente => "material de expediente",
            Category::EquipamentosHospitalares => "equipamentos hospitalares",
            Category::Combustiveis => "combustíveis",
        }
    }
    /// Whether its purchases are engineering works or services (the engineering value limit).
    pub fn is_engineering(self) -> bool {
        self == Category::Obras
    }
    /// Whether it is a continuing service, renewed by 12-month prorrogações.
    pub fn is_continuing_service(self) -> bool {
        matches!(self, Category::Limpeza | Category::Vigilancia | Category::Ti | Category::Alimentacao)
    }
}
