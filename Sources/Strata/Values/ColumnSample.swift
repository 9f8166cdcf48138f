import Foundation

/// What the first non-NULL values of a column show, for ``ColumnFormat/detect(_:declaredType:sample:)``:
/// read by one statement over at most ``limit`` rows on a model's first use (``statementSQL(column:table:)``).
struct ColumnSample {
    /// The first non-NULL value.
    var first: SQLValue?
    /// How many INTEGER values were sampled, and how many of them are at least 10^14 and 10^11 in magnitude.
    var integers = 0, microsecondSized = 0, millisecondSized = 0
    /// How many REAL values were sampled.
    var reals = 0
    /// For a decimal column: the digits after the point that every sampled value has, when all are text
    /// with a point and as many digits after it; else 0.
    var decimalFractionDigits = 0
    /// A sampled date-and-time text with a fraction (`…:SS.fff…`), and one without (`…:SS`, `…:SSZ`).
    var withFraction: String?
    var withoutFraction: String?

    /// How many non-NULL rows the statement looks at.
    static let limit = 100

    init(_ first: SQLValue?, integers: (count: Int, microsecondSized: Int, millisecondSized: Int) = (0, 0, 0),
         withFraction: String? = nil, withoutFraction: String? = nil) {
        self.first = first
        (self.integers, self.microsecondSized, self.millisecondSized) = integers
        self.withFraction = withFraction
        self.withoutFraction = withoutFraction
    }

    /// The sample of a decimal column: how many digits after the point its first ``limit`` non-NULL values
    /// have, least and most (-1 for a value that is no text with a point, or has an exponent).
    static func decimalStatementSQL(column: String, table: String) -> String {
        let c = SQL.quote(column), t = SQL.quote(table)
        return """
            SELECT min(d), max(d) FROM (SELECT CASE WHEN typeof(v) = 'text' AND instr(v, '.') > 0 AND v NOT GLOB '*[eE]*'
            THEN length(v) - instr(v, '.') ELSE -1 END AS d FROM (SELECT \(c) AS v FROM \(t) WHERE \(c) IS NOT NULL LIMIT \(limit)))
            """
    }

    /// The scale of a column of integer dates, by majority of the sampled values (nil when none).
    var integerScale: ColumnFormat? {
        guard integers > 0 else { return nil }
        if microsecondSized * 2 > integers { return .unixMicroseconds }
        return millisecondSized * 2 > integers ? .unixMilliseconds : .unixSecondsInteger
    }

    /// The columns of ``statementSQL(column:table:)``.
    static let columnCount = 7

    /// The sample of a date column: its first non-NULL value, how many of its INTEGER values are of each
    /// scale (over its first ``limit`` non-NULL rows), a date-time text with and without a fraction, and
    /// how many REAL values, over its first ``limit`` non-NULL rows and, for a table with a rowid (`rowID`,
    /// the name that reaches it), its last ``limit``, in one statement. The last rows show a column whose layout changed over time
    /// (Northwind's `OrderDate`: days first, then dates with a time; REAL seconds after whole ones): the
    /// most precise layout the column holds, which a value that needs it is written in.
    static func statementSQL(column: String, table: String, rowID: String? = nil) -> String {
        let c = SQL.quote(column), t = SQL.quote(table)
        let head = "SELECT v, 1 AS head FROM (SELECT \(c) AS v FROM \(t) WHERE \(c) IS NOT NULL LIMIT \(limit))"
        let rows = rowID.map {
            "\(head) UNION ALL SELECT v, 0 FROM (SELECT \(c) AS v FROM \(t) WHERE \(c) IS NOT NULL ORDER BY \($0) DESC LIMIT \(limit))"
        } ?? head
        return """
            SELECT (SELECT \(c) FROM \(t) WHERE \(c) IS NOT NULL LIMIT 1),
            count(CASE WHEN head AND typeof(v) = 'integer' THEN 1 END),
            count(CASE WHEN head AND typeof(v) = 'integer' AND (v >= 100000000000000 OR v <= -100000000000000) THEN 1 END),
            count(CASE WHEN head AND typeof(v) = 'integer' AND (v >= 100000000000 OR v <= -100000000000) THEN 1 END),
            max(CASE WHEN typeof(v) = 'text' AND substr(v, 20, 1) = '.' THEN v END),
            max(CASE WHEN typeof(v) = 'text' AND length(v) >= 19 AND substr(v, 20, 1) <> '.' THEN v END),
            count(CASE WHEN typeof(v) = 'real' THEN 1 END)
            FROM (\(rows))
            """
    }

    /// The sample from the row of ``statementSQL(column:table:)``.
    init(row values: [SQLValue]) {
        func text(_ value: SQLValue) -> String? { if case .text(let s) = value { s } else { nil } }
        func count(_ value: SQLValue) -> Int { if case .integer(let v) = value { Int(v) } else { 0 } }
        self.init(values[0].isNull ? nil : values[0], integers: (count(values[1]), count(values[2]), count(values[3])),
                  withFraction: text(values[4]), withoutFraction: text(values[5]))
        reals = count(values[6])
    }

    /// The fraction layout of a date-time text column: always 3 or 6 digits when every sampled text has
    /// them; Python's (``DateTimeTextStyle/python``: none on whole seconds, else 6) when sampled texts
    /// have 6 digits and none, or all have none. `detected` is what the first text alone shows.
    func fractionDigits(default detected: Int?) -> Int? {
        var digits: Int?
        if let withFraction, case .dateTimeText(let style)? = DateText.style(of: withFraction) { digits = style.fractionDigits }
        guard let digits else { return withoutFraction == nil ? detected : nil }
        return digits == 3 || withoutFraction == nil ? digits : nil
    }
}
