import CSQLite

/// An SQLite result code, primary or extended.
///
/// Compare with the named constants; an extended code also matches its primary code through `~=`:
///
/// ```swift
/// do { try db.execute("INSERT INTO t(id) VALUES (1)") }
/// catch let error as DatabaseError where error.code == .constraintUnique { print("duplicate") }
/// catch let error as DatabaseError where error.code.primary == .constraint { print("other constraint") }
/// ```
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code as SQLite returns it.
    ///
    /// ```swift
    /// ResultCode.constraintUnique.rawValue  // 2067
    /// ```
    public let rawValue: Int32

    /// Wraps a numeric SQLite result code.
    ///
    /// ```swift
    /// let code = ResultCode(rawValue: 19)  // .constraint
    /// ```
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code (the low 8 bits) of an extended code.
    ///
    /// ```swift
    /// ResultCode.constraintUnique.primary == .constraint  // true
    /// ```
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// SQLite's English description of the code.
    ///
    /// ```swift
    /// print(ResultCode.busy)  // "database is locked (5)"
    /// ```
    public var description: String { "\(String(cString: sqlite3_errstr(rawValue))) (\(rawValue))" }

    /// Matches an extended code against a primary code, or two codes exactly.
    ///
    /// ```swift
    /// switch error.code { case .constraint: print("some constraint failed") default: break }
    /// ```
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern == code || (pattern.rawValue == pattern.primary.rawValue && pattern == code.primary)
    }

    /// `SQLITE_OK`.
    ///
    /// ```swift
    /// ResultCode.ok.rawValue == 0
    /// ```
    public static let ok = ResultCode(rawValue: SQLITE_OK)
    /// `SQLITE_ERROR`: a generic error, e.g. SQL syntax.
    ///
    /// ```swift
    /// error.code == .error
    /// ```
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// `SQLITE_INTERNAL`.
    ///
    /// ```swift
    /// error.code == .internalError
    /// ```
    public static let internalError = ResultCode(rawValue: SQLITE_INTERNAL)
    /// `SQLITE_PERM`.
    ///
    /// ```swift
    /// error.code == .permission
    /// ```
    public static let permission = ResultCode(rawValue: SQLITE_PERM)
    /// `SQLITE_ABORT`.
    ///
    /// ```swift
    /// error.code == .abort
    /// ```
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    /// `SQLITE_BUSY`: another connection holds a lock.
    ///
    /// ```swift
    /// error.code == .busy
    /// ```
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`.
    ///
    /// ```swift
    /// error.code == .locked
    /// ```
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// `SQLITE_NOMEM`.
    ///
    /// ```swift
    /// error.code == .noMemory
    /// ```
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    /// `SQLITE_READONLY`.
    ///
    /// ```swift
    /// error.code == .readOnly
    /// ```
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    /// `SQLITE_INTERRUPT`.
    ///
    /// ```swift
    /// error.code == .interrupt
    /// ```
    public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
    /// `SQLITE_IOERR`.
    ///
    /// ```swift
    /// error.code == .ioError
    /// ```
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`.
    ///
    /// ```swift
    /// error.code == .corrupt
    /// ```
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    /// `SQLITE_FULL`.
    ///
    /// ```swift
    /// error.code == .full
    /// ```
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`.
    ///
    /// ```swift
    /// error.code == .cannotOpen
    /// ```
    public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_SCHEMA`.
    ///
    /// ```swift
    /// error.code == .schema
    /// ```
    public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
    /// `SQLITE_TOOBIG`.
    ///
    /// ```swift
    /// error.code == .tooBig
    /// ```
    public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
    /// `SQLITE_CONSTRAINT`: any constraint.
    ///
    /// ```swift
    /// error.code.primary == .constraint
    /// ```
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// `SQLITE_MISMATCH`.
    ///
    /// ```swift
    /// error.code == .mismatch
    /// ```
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    /// `SQLITE_MISUSE`: the API was used wrongly (e.g. a closed database).
    ///
    /// ```swift
    /// error.code == .misuse
    /// ```
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    /// `SQLITE_RANGE`: a parameter index out of range.
    ///
    /// ```swift
    /// error.code == .range
    /// ```
    public static let range = ResultCode(rawValue: SQLITE_RANGE)
    /// `SQLITE_NOTADB`: the file is not a database.
    ///
    /// ```swift
    /// error.code == .notADatabase
    /// ```
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    ///
    /// ```swift
    /// error.code == .constraintUnique
    /// ```
    public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    ///
    /// ```swift
    /// error.code == .constraintPrimaryKey
    /// ```
    public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
    /// `SQLITE_CONSTRAINT_NOTNULL`.
    ///
    /// ```swift
    /// error.code == .constraintNotNull
    /// ```
    public static let constraintNotNull = ResultCode(rawValue: SQLITE_CONSTRAINT | (5 << 8))
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    ///
    /// ```swift
    /// error.code == .constraintForeignKey
    /// ```
    public static let constraintForeignKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (3 << 8))
    /// `SQLITE_CONSTRAINT_CHECK`.
    ///
    /// ```swift
    /// error.code == .constraintCheck
    /// ```
    public static let constraintCheck = ResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
    /// `SQLITE_BUSY_SNAPSHOT`.
    ///
    /// ```swift
    /// error.code == .busySnapshot
    /// ```
    public static let busySnapshot = ResultCode(rawValue: SQLITE_BUSY | (2 << 8))
}

extension ResultCode {
    /// A UNIQUE or PRIMARY KEY constraint failed.
    var isUniqueViolation: Bool { self == .constraintUnique || self == .constraintPrimaryKey }
}
