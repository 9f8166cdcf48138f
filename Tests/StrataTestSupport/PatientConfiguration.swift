import Strata

extension Database.Configuration {
    /// A 60 s busy timeout, for tests that race handles on one file: they are about keys and lost writes,
    /// not lock fairness, and on a loaded machine one writer can hold the lock for the default 5 s.
    ///
    /// ```swift
    /// let db = try Database(path: path, configuration: .patient)
    /// ```
    public static var patient: Self {
        var configuration = Self()
        configuration.busyTimeout = .seconds(60)
        return configuration
    }
}
