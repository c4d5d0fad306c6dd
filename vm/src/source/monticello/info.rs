//! Monticello's version info (the `version` member of an `.mcz`): name, author, time,
//! message, id and ancestry, in the S-expressions Monticello writes
//! (`(name 'Pkg-ab.2' message '...' id '...' date '...' time '...' author 'ab' ancestors
//! (...) stepChildren ())`), and the `package` member (`(name 'Pkg')`).

use std::collections::HashMap;

/// A version's description and its ancestry, as Monticello records it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct VersionInfo {
    /// `Pkg-author.N`.
    pub name: String,
    /// The message the version was saved with.
    pub message: String,
    /// Its UUID, as text.
    pub id: String,
    /// The date as Squeak prints it (`4 December 2026`).
    pub date: String,
    /// The time as Squeak prints it (`4:34:36 pm`).
    pub time: String,
    /// The author's initials.
    pub author: String,
    /// The versions it was made from: one, or two for a merge.
    pub ancestors: Vec<VersionInfo>,
    /// Versions it took changes from without merging (kept, never written new).
    pub step_children: Vec<VersionInfo>,
}

impl VersionInfo {
    /// A new version, made now, with a fresh id.
    pub fn new(name: &str, author: &str, message: &str, ancestors: Vec<VersionInfo>) -> VersionInfo {
        let (date, time) = squeak_now();
        VersionInfo {
            name: name.to_string(),
            message: message.to_string(),
            id: uuid::Uuid::new_v4().to_string(),
            date,
            time,
            author: author.to_string(),
            ancestors,
            step_children: Vec::new(),
        }
    }

    /// The version number at the end of a Monticello name (`Pkg-ab.12` is 12).
    pub fn number(&self) -> Option<u64> {
        self.name.rsplit_once('.').and_then(|(_, n)| n.parse().ok())
    }

    /// The `version` member's text, as Monticello's writer writes it: an ancestor seen
    /// before is written `(id '...')`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, &mut Vec::new());
        out
    }

    fn write(&self, out: &mut String, written: &mut Vec<String>) {
        if written.contains(&self.id) {
            out.push_str(&format!("(id {})", quote(&self.id)));
            return;
        }
        out.push('(');
        for (key, value) in [
            ("name", &self.name),
            ("message", &self.message),
            ("id", &self.id),
            ("date", &self.date),
            ("time", &self.time),
            ("author", &self.author),
        ] {
            out.push_str(&format!("{key} {} ", quote(value)));
        }
        out.push_str("ancestors (");
        for a in &self.ancestors {
            a.write(out, written);
        }
        out.push_str(") stepChildren (");
        for c in &self.step_children {
            c.write(out, written);
        }
        out.push_str("))");
        written.push(self.id.clone());
    }

    /// Reads a `version` member.
    pub fn parse(text: &str) -> Result<VersionInfo, String> {
        let sexp = parse(text)?;
        VersionInfo::from_sexp(&sexp, &mut HashMap::new())
    }

    fn from_sexp(sexp: &Sexp, seen: &mut HashMap<String, VersionInfo>) -> Result<VersionInfo, String> {
        let fields = pairs(sexp)?;
        let text = |key: &str| match fields.get(key) {
            Some(Sexp::Str(s)) => Ok(s.clone()),
            None => Ok(String::new()),
            Some(_) => Err(format!("'{key}' must be a string")),
        };
        let id = text("id")?;
        if fields.len() == 1 && !id.is_empty() {
            return Ok(seen.get(&id).cloned().unwrap_or(VersionInfo { id, ..VersionInfo::default() }));
        }
        let mut list = |key: &str| -> Result<Vec<VersionInfo>, String> {
            match fields.get(key) {
                None => Ok(Vec::new()),
                Some(Sexp::List(items)) => {
                    items.iter().filter(|i| **i != Sexp::Trimmed).map(|i| VersionInfo::from_sexp(i, seen)).collect()
                }
                Some(_) => Err(format!("'{key}' must be a list")),
            }
        };
        let ancestors = list("ancestors")?;
        let step_children = list("stepChildren")?;
        let info = VersionInfo {
            name: text("name")?,
            message: text("message")?,
            id,
            date: text("date")?,
            time: text("time")?,
            author: text("author")?,
            ancestors,
            step_children,
        };
        if info.name.is_empty() {
            return Err("a version without a name".into());
        }
        seen.insert(info.id.clone(), info.clone());
        Ok(info)
    }
}

/// The `package` member's text.
pub fn package_text(name: &str) -> String {
    format!("(name {})", quote(name))
}

/// The package name a `package` member gives.
pub fn parse_package(text: &str) -> Result<String, String> {
    match pairs(&parse(text)?)?.get("name") {
        Some(Sexp::Str(name)) if !name.is_empty() => Ok(name.clone()),
        _ => Err("expected (name 'Package')".into()),
    }
}

/// One S-expression as Monticello writes them.
#[derive(Clone, Debug, PartialEq)]
enum Sexp {
    Word(String),
    Str(String),
    List(Vec<Sexp>),
    /// A list nested deeper than `MAX_DEPTH`, read past.
    Trimmed,
}

/// A list of `key value` pairs, by key.
fn pairs(sexp: &Sexp) -> Result<HashMap<String, Sexp>, String> {
    let Sexp::List(items) = sexp else {
        return Err("expected a list".into());
    };
    if items.len() % 2 != 0 {
        return Err("expected pairs of a key and a value".into());
    }
    let mut out = HashMap::new();
    for pair in items.chunks(2) {
        match pair {
            [Sexp::Word(key), value] => {
                out.insert(key.clone(), value.clone());
            }
            _ => return Err("expected a key".into()),
        }
    }
    Ok(out)
}

/// Smalltalk's quoting: `'it''s'`.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Reads one S-expression, the whole of `text`.
fn parse(text: &str) -> Result<Sexp, String> {
    let mut chars = text.chars().peekable();
    let sexp = read(&mut chars, 0)?;
    match chars.find(|c| !c.is_whitespace()) {
        None => Ok(sexp),
        Some(c) => Err(format!("unexpected '{c}' after the end")),
    }
}

/// Lists nested deeper than this are read past (`Sexp::Trimmed`): a version's ancestry is
/// nested two levels per generation, and the generations beyond 500 are not kept.
const MAX_DEPTH: usize = 1_000;

fn read(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, depth: usize) -> Result<Sexp, String> {
    while chars.next_if(|c| c.is_whitespace()).is_some() {}
    match chars.next() {
        None => Err("unexpected end".into()),
        Some('(') => {
            if depth >= MAX_DEPTH {
                return skip_list(chars).map(|()| Sexp::Trimmed);
            }
            let mut items = Vec::new();
            loop {
                while chars.next_if(|c| c.is_whitespace()).is_some() {}
                if chars.next_if_eq(&')').is_some() {
                    return Ok(Sexp::List(items));
                }
                items.push(read(chars, depth + 1)?);
            }
        }
        Some('\'') => {
            let mut s = String::new();
            loop {
                match chars.next() {
                    None => return Err("a string is not closed".into()),
                    Some('\'') if chars.next_if_eq(&'\'').is_some() => s.push('\''),
                    Some('\'') => return Ok(Sexp::Str(s)),
                    Some(c) => s.push(c),
                }
            }
        }
        Some(c) if c.is_alphanumeric() || c == '#' => {
            let mut word = String::from(c);
            while let Some(c) = chars.next_if(|c| c.is_alphanumeric() || matches!(c, ':' | '_' | '.')) {
                word.push(c);
            }
            Ok(Sexp::Word(word))
        }
        Some(c) => Err(format!("unexpected '{c}'")),
    }
}

/// Reads past the rest of a list whose `(` was just read.
fn skip_list(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<(), String> {
    let mut open = 1usize;
    let mut in_string = false;
    while open > 0 {
        match chars.next() {
            None => return Err("unexpected end".into()),
            Some('\'') => in_string = !in_string,
            Some('(') if !in_string => open += 1,
            Some(')') if !in_string => open -= 1,
            Some(_) => {}
        }
    }
    Ok(())
}

/// Today's date and the time now (UTC) as Squeak prints them: `4 December 2026`,
/// `4:34:36 pm`.
fn squeak_now() -> (String, String) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_from_days(secs / 86_400);
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let month = MONTHS.get(month.saturating_sub(1) as usize).copied().unwrap_or("January");
    let of_day = secs % 86_400;
    let (hour, minute, second) = (of_day / 3600, of_day / 60 % 60, of_day % 60);
    let twelve = if hour % 12 == 0 { 12 } else { hour % 12 };
    let half = if hour < 12 { "am" } else { "pm" };
    (format!("{day} {month} {year}"), format!("{twelve}:{minute:02}:{second:02} {half}"))
}

/// The calendar date of a day counted from 1970-01-01 (the proleptic Gregorian calendar).
pub fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, id: &str, ancestors: Vec<VersionInfo>) -> VersionInfo {
        VersionInfo {
            name: name.into(),
            message: format!("it's {name}"),
            id: id.into(),
            date: "4 December 2026".into(),
            time: "4:34:36 pm".into(),
            author: "ab".into(),
            ancestors,
            step_children: vec![],
        }
    }

    #[test]
    fn written_as_monticello_writes_it_and_read_back() {
        let root = info("Shop-ab.1", "1", vec![]);
        let left = info("Shop-ab.2", "2", vec![root.clone()]);
        let right = info("Shop-cd.2", "3", vec![root.clone()]);
        let merged = info("Shop-ab.3", "4", vec![left, right]);
        let text = merged.to_text();
        assert!(text.starts_with(
            "(name 'Shop-ab.3' message 'it''s Shop-ab.3' id '4' date '4 December 2026' time '4:34:36 pm' author 'ab' ancestors ((name 'Shop-ab.2'"
        ));
        // The common ancestor is written once, then by its id.
        assert_eq!(text.matches("'Shop-ab.1'").count(), 1);
        assert!(text.contains("ancestors ((id '1')) stepChildren ()))"));
        assert_eq!(VersionInfo::parse(&text).unwrap(), merged);
        assert_eq!(merged.number(), Some(3));
    }

    #[test]
    fn bad_version_members() {
        for bad in [
            "",
            "(name 'x'",
            "(name 'x) ",
            "(name x)",
            "(name 'x' ancestors 'y')",
            "(message 'm')",
            "(name 'x') 1",
            "(name)",
        ] {
            assert!(VersionInfo::parse(bad).is_err(), "{bad:?}");
        }
        let deep = "(name 'x' ancestors ".repeat(20_000);
        assert!(VersionInfo::parse(&deep).is_err());
        // A long ancestry is kept to 500 generations.
        let mut long = info("Shop-ab.1", "1", vec![]);
        for n in 2..=800 {
            long = info(&format!("Shop-ab.{n}"), &n.to_string(), vec![long]);
        }
        let mut read = VersionInfo::parse(&long.to_text()).unwrap();
        let mut generations = 1;
        while let Some(a) = read.ancestors.pop() {
            read = a;
            generations += 1;
        }
        assert_eq!((generations, read.name.as_str()), (500, "Shop-ab.301"));
    }

    #[test]
    fn packages() {
        assert_eq!(package_text("It's"), "(name 'It''s')");
        assert_eq!(parse_package("(name 'It''s')\n").unwrap(), "It's");
        assert!(parse_package("(name '')").is_err());
        assert!(parse_package("(nom 'x')").is_err());
    }

    #[test]
    fn calendar() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_791), (2026, 12, 4));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        let (date, time) = squeak_now();
        assert!(date.split(' ').count() == 3 && (time.ends_with(" am") || time.ends_with(" pm")), "{date} {time}");
    }
}
