//! Enums that travel as fixed lowercase labels (in SQLite, JSON and on the
//! command line). One macro so that parsing, printing and the list of accepted
//! values can never disagree. `sql_text!` stores them as their labels.

#[macro_export]
macro_rules! labelled_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident => $label:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $label),+
                }
            }

            /// The accepted labels, for error messages and help text.
            pub fn labels() -> String {
                [$($label),+].join(", ")
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::error::ValidationError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let wanted = s.trim().to_ascii_lowercase().replace('_', "-");
                match wanted.as_str() {
                    $($label => Ok($name::$variant),)+
                    _ => Err($crate::error::ValidationError::new(
                        $what,
                        format!("unknown value \"{}\" (expected one of: {})", s, $name::labels()),
                    )),
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                s.parse().map_err(::serde::de::Error::custom)
            }
        }
    };
}

/// SQLite reads and writes a labelled enum as its label.
#[cfg(feature = "sqlite")]
#[macro_export]
macro_rules! sql_text {
    ($($name:ty),+ $(,)?) => {
        $(
        impl ::rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> ::rusqlite::Result<::rusqlite::types::ToSqlOutput<'_>> {
                Ok(self.as_str().into())
            }
        }

        impl ::rusqlite::types::FromSql for $name {
            fn column_result(
                value: ::rusqlite::types::ValueRef<'_>,
            ) -> ::rusqlite::types::FromSqlResult<Self> {
                let s = value.as_str()?;
                s.parse()
                    .map_err(|e| ::rusqlite::types::FromSqlError::Other(Box::new(e)))
            }
        }
        )+
    };
}

#[cfg(feature = "sqlite")]
mod sql {
    use crate::accelerator::xid::{Blame, Severity};
    use crate::accelerator::{FormFactor, Vendor};
    use crate::domain::{
        BillingMode, Breakpoint, Duplicate, EventKind, FaultKind, ImageState, Interconnect,
        LoadScenario, PlatformKind, Rounding, RunKind, SourceKind, StartupOutcome,
    };

    sql_text!(
        Blame,
        Severity,
        Vendor,
        FormFactor,
        Breakpoint,
        Rounding,
        RunKind,
        SourceKind,
        Duplicate,
        Interconnect,
        BillingMode,
        EventKind,
        LoadScenario,
        ImageState,
        StartupOutcome,
        FaultKind,
        PlatformKind,
    );
}
