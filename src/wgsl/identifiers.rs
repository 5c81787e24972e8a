//! Renaming whole WGSL identifiers in generated code: how one generated module is reused under
//! other names (the packed form's limb-level arithmetic, an extension field's base field).

/// `code` with every identifier for which `rename` gives a new name replaced by it. Identifiers
/// are matched whole (`[A-Za-z0-9_]+` runs), so a name that merely contains another is left
/// alone.
pub(super) fn rename_identifiers(code: &str, rename: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    let mut ident = String::new();
    let flush = |ident: &mut String, out: &mut String| {
        match rename(ident) {
            Some(name) => out.push_str(&name),
            None => out.push_str(ident),
        }
        ident.clear();
    };
    for c in code.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            ident.push(c);
        } else {
            if !ident.is_empty() {
                flush(&mut ident, &mut out);
            }
            out.push(c);
        }
    }
    if !ident.is_empty() {
        flush(&mut ident, &mut out);
    }
    out
}
