//! Response types in both naming variants from one field list. `bilingual!` declares an
//! English struct and its Portuguese twin (same fields, same order, Portuguese names), both
//! `Serialize + ToSchema`, and the renaming from the one to the other: a view fills the
//! English struct with values already in the route's language and [`localized`] renames the
//! keys for the Portuguese routes. The two variants cannot drift apart, and the OpenAPI
//! document derives both schemas.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::http::error::Lang;

/// Renames a value's keys into the Portuguese variant (identity for values without keys).
pub trait Rename {
    /// The Portuguese variant.
    type Out;
    /// The value with Portuguese keys.
    fn rename(self) -> Self::Out;
}

macro_rules! same_in_both {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::http::views::bilingual::Rename for $t {
            type Out = $t;
            fn rename(self) -> $t {
                self
            }
        })*
    };
}

same_in_both!(
    String,
    &'static str,
    bool,
    u8,
    u64,
    usize,
    f64,
    Value,
    Map<String, Value>,
    BTreeMap<String, usize>,
    BTreeMap<String, f64>,
    BTreeMap<String, [f64; 2]>,
    crate::domain::Filters,
    crate::domain::InvestigationId,
);

impl<T: Rename> Rename for Option<T> {
    type Out = Option<T::Out>;
    fn rename(self) -> Self::Out {
        self.map(Rename::rename)
    }
}

impl<T: Rename> Rename for Vec<T> {
    type Out = Vec<T::Out>;
    fn rename(self) -> Self::Out {
        self.into_iter().map(Rename::rename).collect()
    }
}

/// A response in the variant of its route.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Localized<E, P> {
    /// English keys.
    En(E),
    /// Portuguese keys.
    Pt(P),
}

/// `view` (English keys, values already in `lang`) in the keys of `lang`.
pub fn localized<E: Rename>(lang: Lang, view: E) -> Localized<E, E::Out> {
    match lang {
        Lang::En => Localized::En(view),
        Lang::Pt => Localized::Pt(view.rename()),
    }
}

/// Declares an English response struct, its Portuguese twin and the renaming between them:
/// `field_en / campo_pt: EnglishType => PortugueseType` (the same type for plain values).
macro_rules! bilingual {
    (
        $(#[$meta:meta])*
        $en:ident / $pt:ident {
            $( $(#[$fmeta:meta])* $ef:ident / $pf:ident : $ety:ty => $pty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
        pub struct $en {
            $( $(#[$fmeta])* pub $ef: $ety, )*
        }

        $(#[$meta])*
        #[doc = ""]
        #[doc = concat!("Portuguese variant of `", stringify!($en), "`.")]
        #[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
        pub struct $pt {
            $( $(#[$fmeta])* pub $pf: $pty, )*
        }

        impl $crate::http::views::bilingual::Rename for $en {
            type Out = $pt;
            fn rename(self) -> $pt {
                $pt { $( $pf: $crate::http::views::bilingual::Rename::rename(self.$ef), )* }
            }
        }
    };
}

pub(crate) use {bilingual, same_in_both};
