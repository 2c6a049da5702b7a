//! A summary query's answer read series by series as it is parsed, never
//! built into a tree: each series (one figure of one GPU over a day of
//! windows) is handed on and dropped, so an answer of 60 MB costs its text
//! and one series at a time, not the gigabytes its tree would.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{
    DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

/// One series of a summary answer, its labels and points borrowed from the
/// answer's text.
#[derive(Deserialize)]
pub(super) struct SummarySeries<'a> {
    #[serde(borrow, default)]
    pub metric: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
    #[serde(borrow, default)]
    pub values: Vec<(f64, Cow<'a, str>)>,
}

/// What reading an answer found besides its series.
#[derive(Debug, Default)]
struct Found {
    status: Option<String>,
    error_type: Option<String>,
    error: Option<String>,
    result: bool,
}

/// Read `text`, a `query_range` answer, handing each series of its result
/// to `each` as it is parsed. At most `most` series: past them the answer
/// is refused (a node has a few GPUs, and each a few dozen figures).
pub(super) fn for_each_series(
    text: &str,
    most: usize,
    each: &mut dyn FnMut(SummarySeries<'_>) -> Result<(), String>,
) -> Result<(), String> {
    let mut found = Found::default();
    let mut seen = 0usize;
    let mut refusal: Option<String> = None;
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Answer {
        found: &mut found,
        each,
        seen: &mut seen,
        most,
        refusal: &mut refusal,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    if let Some(r) = refusal {
        return Err(r);
    }
    parsed.map_err(|e| {
        format!(
            "not a query_range answer ({e}): {}",
            breakpoint_core::text::printable_excerpt(text, 200)
        )
    })?;
    if found.status.as_deref() != Some("success") {
        return Err(format!(
            "the server answered {}: {}",
            breakpoint_core::text::printable_excerpt(
                found.error_type.as_deref().unwrap_or("an error"),
                80
            ),
            breakpoint_core::text::printable_excerpt(
                found.error.as_deref().unwrap_or("no message"),
                200
            )
        ));
    }
    if !found.result {
        return Err("a query_range answer without result".into());
    }
    Ok(())
}

/// The answer's top level: `status`, `errorType`, `error`, and `data`.
struct Answer<'f, 'e> {
    found: &'f mut Found,
    each: &'e mut dyn FnMut(SummarySeries<'_>) -> Result<(), String>,
    seen: &'f mut usize,
    most: usize,
    refusal: &'f mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Answer<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Answer<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Prometheus API answer")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Answer {
            found,
            each,
            seen,
            most,
            refusal,
        } = self;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "status" => found.status = Some(map.next_value::<Cow<'de, str>>()?.into_owned()),
                "errorType" => {
                    found.error_type = map
                        .next_value::<Option<Cow<'de, str>>>()?
                        .map(Cow::into_owned)
                }
                "error" => {
                    found.error = map
                        .next_value::<Option<Cow<'de, str>>>()?
                        .map(Cow::into_owned)
                }
                "data" => map.next_value_seed(Data {
                    found: &mut *found,
                    each: &mut *each,
                    seen: &mut *seen,
                    most,
                    refusal: &mut *refusal,
                })?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// `data`: its `result`, read series by series; the rest skipped.
struct Data<'f, 'e> {
    found: &'f mut Found,
    each: &'e mut dyn FnMut(SummarySeries<'_>) -> Result<(), String>,
    seen: &'f mut usize,
    most: usize,
    refusal: &'f mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Data<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for Data<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the answer's data")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Data {
            found,
            each,
            seen,
            most,
            refusal,
        } = self;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "result" {
                found.result = true;
                map.next_value_seed(Series {
                    each: &mut *each,
                    seen: &mut *seen,
                    most,
                    refusal: &mut *refusal,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// `result`: each series handed on as soon as it is read.
struct Series<'f, 'e> {
    each: &'e mut dyn FnMut(SummarySeries<'_>) -> Result<(), String>,
    seen: &'f mut usize,
    most: usize,
    refusal: &'f mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for Series<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Series<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of series")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(series) = seq.next_element::<SummarySeries<'de>>()? {
            *self.seen += 1;
            if *self.seen > self.most {
                let why = format!(
                    "the server answered more than {} series for one node's day: refused",
                    self.most
                );
                *self.refusal = Some(why.clone());
                return Err(A::Error::custom(why));
            }
            if let Err(why) = (self.each)(series) {
                *self.refusal = Some(why.clone());
                return Err(A::Error::custom(why));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn figures(text: &str, most: usize) -> Result<Vec<(String, usize)>, String> {
        let mut out = Vec::new();
        for_each_series(text, most, &mut |s| {
            out.push((
                s.metric
                    .get("bp_figure")
                    .map(|f| f.to_string())
                    .unwrap_or_default(),
                s.values.len(),
            ));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn series_are_handed_on_one_by_one_and_the_rest_skipped() {
        let text = r#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"bp_figure":"points","gpu":"0"},"values":[[3600,"240"],[7200,"240"]]},
            {"metric":{"bp_figure":"busy","gpu":"0"},"values":[[3600,"12"]]}],
            "stats":{"deep":[1,2,{"x":null}]}},"warnings":["slow"]}"#;
        assert_eq!(
            figures(text, 10).unwrap(),
            [("points".to_string(), 2), ("busy".to_string(), 1)]
        );
    }

    #[test]
    fn errors_too_many_series_and_what_is_no_answer_are_said() {
        let e = figures(
            r#"{"status":"error","errorType":"bad_data","error":"parse error"}"#,
            10,
        )
        .unwrap_err();
        assert_eq!(e, "the server answered bad_data: parse error");
        let many = format!(
            r#"{{"status":"success","data":{{"result":[{}]}}}}"#,
            [r#"{"metric":{},"values":[]}"#; 11].join(",")
        );
        let e = figures(&many, 10).unwrap_err();
        assert!(e.contains("more than 10 series"), "{e}");
        assert!(
            figures(r#"{"status":"success","data":{}}"#, 10)
                .unwrap_err()
                .contains("without result")
        );
        assert!(
            figures("<html>", 10)
                .unwrap_err()
                .starts_with("not a query_range answer")
        );
        let e = for_each_series(
            r#"{"status":"success","data":{"result":[{"metric":{},"values":[]}]}}"#,
            10,
            &mut |_| Err("a GPU numbered 5000".into()),
        )
        .unwrap_err();
        assert_eq!(e, "a GPU numbered 5000");
    }
}
