/// The layout of dates stored as text: always UTC.
///
/// ```swift
/// let django = DateTimeTextStyle(fractionDigits: nil)                       // "2001-02-03 04:05:06.789000"
/// let iso = DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z")  // "2001-02-03T04:05:06.789Z"
/// ```
public struct DateTimeTextStyle: Hashable, Sendable {
    /// Between the date and the time: `" "` or `"T"`.
    ///
    /// ```swift
    /// style.separator  // " "
    /// ```
    public var separator: String
    /// Digits after the seconds: 6 or 3 always (SQLAlchemy writes 6), or nil for Python's `str()` of a
    /// datetime, which Django and peewee write: none on whole seconds, 6 otherwise (``python``).
    ///
    /// ```swift
    /// style.fractionDigits  // 6
    /// ```
    public var fractionDigits: Int?
    /// After the time: `""`, `"Z"` or `"+00:00"`.
    ///
    /// ```swift
    /// style.zoneSuffix  // ""
    /// ```
    public var zoneSuffix: String

    /// A style; the defaults are SQLAlchemy's layout, which Django and peewee also read.
    ///
    /// ```swift
    /// let style = DateTimeTextStyle()   // "2001-02-03 04:05:06.789000"
    /// ```
    public init(separator: String = " ", fractionDigits: Int? = 6, zoneSuffix: String = "") {
        self.separator = separator
        self.fractionDigits = fractionDigits
        self.zoneSuffix = zoneSuffix
    }

    /// Python's `str()` of a naive datetime, as Django and peewee store it: no fraction on whole seconds,
    /// 6 digits otherwise (`fractionDigits` nil). Strata writes it into an empty `datetime` column, and
    /// Django's, peewee's and SQLAlchemy's readers all take it.
    ///
    /// ```swift
    /// try ColumnFormat.dateTimeText(.python).stored(.real(1_704_164_645))     // .text("2024-01-02 03:04:05")
    /// try ColumnFormat.dateTimeText(.python).stored(.real(1_704_164_645.25))  // .text("2024-01-02 03:04:05.250000")
    /// ```
    public static let python = DateTimeTextStyle(fractionDigits: nil)
}
