//! The text of content kept as its JSON text ([`crate::io::json::parse_kept`]: a container
//! past the caps), read one item at a time so that it is never built as a tree: what
//! [`super::text_of`] gives of the same content as a tree.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// [`super::text_of`] of the container written as `text`: the texts of a list's items, or
/// an object as its JSON text.
pub(super) fn text_of(text: &str) -> String {
    struct Items;
    impl<'de> Visitor<'de> for Items {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of content items")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<String>, A::Error> {
            let mut out = String::new();
            let mut first = true;
            while let Some(item) = seq.next_element::<&'de RawValue>()? {
                if !first {
                    out.push('\n');
                }
                first = false;
                let (text, ty) = text_and_type(item.get());
                match text {
                    Some(t) => out.push_str(&t),
                    None => out.push_str(&format!("[{}]", ty.as_deref().unwrap_or("?"))),
                }
            }
            Ok(Some(out))
        }
        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Option<String>, A::Error> {
            Ok(None)
        }
    }
    let mut d = serde_json::Deserializer::from_str(text);
    match d.deserialize_any(Items) {
        Ok(Some(texts)) => texts,
        // An object is shown as its JSON text, as written.
        _ => text.to_string(),
    }
}

/// The `text` and `type` of a content item written as `item`, each when it is a string (the
/// last of a member written twice, as in a tree); `(None, None)` for anything but an object.
pub(super) fn text_and_type(item: &str) -> (Option<String>, Option<String>) {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = (Option<String>, Option<String>);
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a content item")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut text, mut ty) = (None, None);
            while let Some(k) = map.next_key::<String>()? {
                match k.as_str() {
                    "text" => text = map.next_value::<crate::io::json::LString>()?.0,
                    "type" => ty = map.next_value::<crate::io::json::LString>()?.0,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok((text, ty))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok((None, None))
        }
    }
    let mut d = serde_json::Deserializer::from_str(item);
    d.deserialize_any(Members).unwrap_or((None, None))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// Kept or built, content gives the same text.
    #[test]
    fn kept_content_reads_as_the_tree() {
        let big: Vec<String> = (0..crate::io::json::KEEP_ELEMENTS + 1)
            .map(|i| match i % 4 {
                0 => format!(r#"{{"type":"text","text":"t{i}"}}"#),
                1 => r#"{"type":"image","text":7}"#.to_string(),
                2 => r#"{"text":"a","text":{"x":1},"type":"doc"}"#.to_string(),
                _ => "[1]".to_string(),
            })
            .collect();
        let text = format!("[{}]", big.join(","));
        let tree: Value = serde_json::from_str(&text).unwrap();
        let kept = crate::io::json::parse_kept(text.as_bytes()).unwrap();
        assert!(crate::io::json::kept_text(&kept).is_some());
        assert_eq!(super::super::text_of(&kept), super::super::text_of(&tree));
        // An item past the caps in a list that is not.
        let item = format!(
            r#"{{"type":"doc","xs":[{}]}}"#,
            vec!["1"; crate::io::json::KEEP_ELEMENTS + 1].join(",")
        );
        let text = format!(r#"[{item},{{"text":"b"}}]"#);
        let tree: Value = serde_json::from_str(&text).unwrap();
        let kept = crate::io::json::parse_kept(text.as_bytes()).unwrap();
        assert_eq!(super::super::text_of(&kept), "[doc]\nb");
        assert_eq!(super::super::text_of(&tree), "[doc]\nb");
    }
}
