use std::env;

/// Pager is the program the output is piped to when it does not fit the
/// screen: $PG_PAGER, else $PAGER, else less.
pub struct Pager {
    command: String,
}

impl Pager {
    /// from_env picks the pager from an environment variable.
    pub fn from_env() -> Pager {
        let command = env::var("PG_PAGER").or_else(|_| env::var("PAGER")).unwrap_or_else(|_| "less".into());
        Pager { command }
    }
}
