//! `lab_api`'s fieldless enums as they travel, without a copy of each on
//! the wire side: a variant travels as its name in kebab case
//! (`RetryAfterError::InvalidDate` as `"invalid-date"`), as serde's
//! `rename_all = "kebab-case"` writes a unit variant. `lab-api` stays free
//! of serde (learners compile it), so a field of such a type is written
//! `#[serde(with = "crate::named")]`, and a table reads one with
//! [`Named::parse`].

use lab_api::advanced::RetryAfterError;
use serde::{de::Error, Deserialize, Deserializer, Serializer};

/// A fieldless `lab_api` enum whose variants the checker sends and reads
/// by name.
pub trait Named: Copy + std::fmt::Debug + 'static {
    /// Every variant, in the order of its declaration.
    const ALL: &'static [Self];

    /// The variant's name, as in `RetryAfterError::InvalidDate` (a derived
    /// `Debug` of a fieldless enum writes just that).
    fn name(self) -> String {
        format!("{self:?}")
    }

    /// The variant whose kebab-case name is `text`.
    fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| kebab(&v.name()) == text)
    }
}

impl Named for RetryAfterError {
    const ALL: &'static [Self] = {
        use RetryAfterError::*;
        &[
            Missing,
            Duplicate,
            Empty,
            Oversized,
            Syntax,
            InvalidDate,
            OverLimit,
        ]
    };
}

/// `InvalidDate` as `invalid-date`: serde's kebab case for a variant.
fn kebab(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('-');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Writes a variant as its kebab-case name.
pub fn serialize<T: Named, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&kebab(&value.name()))
}

/// Reads a variant from its kebab-case name.
pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    let text = String::deserialize(d)?;
    T::parse(&text).ok_or_else(|| D::Error::custom(format!("unknown variant `{text}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_listed_once_in_declaration_order() {
        let all = RetryAfterError::ALL;
        assert!(all.iter().enumerate().all(|(i, &v)| v as usize == i));
        // The last variant is the last listed: none was left out.
        assert_eq!(all.len(), RetryAfterError::OverLimit as usize + 1);
    }

    #[test]
    fn a_variant_travels_as_its_kebab_case_name_and_back() {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        struct Carried {
            #[serde(with = "crate::named")]
            error: RetryAfterError,
        }
        let carried = Carried {
            error: RetryAfterError::InvalidDate,
        };
        let json = serde_json::to_value(&carried).unwrap();
        assert_eq!(json, serde_json::json!({ "error": "invalid-date" }));
        assert_eq!(serde_json::from_value::<Carried>(json).unwrap(), carried);
        assert!(
            serde_json::from_value::<Carried>(serde_json::json!({ "error": "InvalidDate" }))
                .is_err()
        );
        assert_eq!(kebab("TooManyWakeUps"), "too-many-wake-ups");
        assert_eq!(
            RetryAfterError::parse("over-limit"),
            Some(RetryAfterError::OverLimit)
        );
        assert_eq!(RetryAfterError::OverLimit.name(), "OverLimit");
    }
}
