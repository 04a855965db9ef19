/// Which release of Strata this is.
public enum StrataRelease {
    /// The version, in semantic versioning: the newest release heading of `CHANGELOG.md`. While
    /// the major version is 0, a minor release may break the public API (named in the changelog's
    /// Breaking section) and a patch release never does.
    public static let version = "0.1.0"
}
