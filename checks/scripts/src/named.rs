//! `lab_api`'s fieldless enums as they travel, without a copy of each on
//! the wire side: a variant travels as its name in kebab case
//! (`RetryAfterError::InvalidDate` as `"invalid-date"`), as serde's
//! `rename_all = "kebab-case"` writes a unit variant. `lab-api` stays free
//! of serde (learners compile it), so a field of such a type is written
//! `#[serde(with = "crate::named")]`, and a table reads one with
//! [`Named::parse`]. Two more shapes travel as serde would write the wire
//! enums they replace: [`ending`], a `sleep_at_least` result, and
//! [`stop`], a `Stop`.

use lab_api::advanced::{RetryAfterError, SleepFault, Stop};
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

impl Named for SleepFault {
    const ALL: &'static [Self] = {
        use SleepFault::*;
        &[
            InvalidArgument,
            UnrepresentableWait,
            NonFiniteReading,
            ClockWentBackwards,
            Cancelled,
            DeadlineReached,
            NoProgress,
            TooManyWakeUps,
        ]
    };
}

/// Every `Stop` but `Guard`, which carries a fault.
impl Named for Stop {
    const ALL: &'static [Self] = {
        use Stop::*;
        &[
            StatusNotAllowed,
            MethodNotAllowed,
            AttemptLimit,
            InvalidRetryAfter,
            InsufficientBudget,
            Cancelled,
            DeadlineReached,
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

/// A `sleep_at_least` result: `"ok"`, or the fault's kebab-case name.
pub mod ending {
    use super::{kebab, Named, SleepFault};
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        ending: &Result<(), SleepFault>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match ending {
            Ok(()) => s.serialize_str("ok"),
            Err(fault) => s.serialize_str(&kebab(&fault.name())),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Result<(), SleepFault>, D::Error> {
        let text = String::deserialize(d)?;
        parse(&text).ok_or_else(|| D::Error::custom(format!("unknown variant `{text}`")))
    }

    /// The result whose name is `text` (`"ok"` or a fault's).
    pub fn parse(text: &str) -> Option<Result<(), SleepFault>> {
        match text {
            "ok" => Some(Ok(())),
            fault => SleepFault::parse(fault).map(Err),
        }
    }
}

/// A `Stop`: a kebab-case name, or `{"guard": {"fault": name}}`.
pub mod stop {
    use super::{kebab, Named, SleepFault, Stop};
    use serde::{de::Error, ser::SerializeMap, Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Guard {
        #[serde(with = "crate::named")]
        fault: SleepFault,
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Wire {
        Name(String),
        Guard { guard: Guard },
    }

    pub fn serialize<S: Serializer>(stop: &Stop, s: S) -> Result<S::Ok, S::Error> {
        match *stop {
            Stop::Guard(fault) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("guard", &Guard { fault })?;
                map.end()
            }
            other => s.serialize_str(&kebab(&other.name())),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Stop, D::Error> {
        match Wire::deserialize(d)? {
            Wire::Guard { guard } => Ok(Stop::Guard(guard.fault)),
            Wire::Name(text) => Stop::parse(&text)
                .ok_or_else(|| D::Error::custom(format!("unknown variant `{text}`"))),
        }
    }
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
        let all = SleepFault::ALL;
        assert!(all.iter().enumerate().all(|(i, &v)| v as usize == i));
        assert_eq!(all.len(), SleepFault::TooManyWakeUps as usize + 1);
        let names: Vec<String> = Stop::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), 7);
        assert!(names.iter().all(|n| !n.contains('(')), "{names:?}");
    }

    #[test]
    fn a_stop_and_an_ending_travel_as_serde_wrote_their_wire_enums() {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        struct Carried {
            #[serde(with = "crate::named::stop")]
            reason: Stop,
            #[serde(with = "crate::named::ending")]
            result: Result<(), SleepFault>,
        }
        let cases = [
            (
                Stop::AttemptLimit,
                Ok(()),
                r#"{"reason":"attempt-limit","result":"ok"}"#,
            ),
            (
                Stop::Guard(SleepFault::NoProgress),
                Err(SleepFault::ClockWentBackwards),
                r#"{"reason":{"guard":{"fault":"no-progress"}},"result":"clock-went-backwards"}"#,
            ),
        ];
        for (reason, result, text) in cases {
            let carried = Carried { reason, result };
            assert_eq!(serde_json::to_string(&carried).unwrap(), text);
            assert_eq!(serde_json::from_str::<Carried>(text).unwrap(), carried);
        }
        for wrong in [
            r#"{"reason":"guard","result":"ok"}"#,
            r#"{"reason":{"guard":{"fault":"ok"}},"result":"ok"}"#,
            r#"{"reason":"attempt-limit","result":"no-progres"}"#,
        ] {
            assert!(serde_json::from_str::<Carried>(wrong).is_err(), "{wrong}");
        }
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
