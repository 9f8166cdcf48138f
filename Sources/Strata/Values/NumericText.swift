/// Which texts count as numbers when a number is read from TEXT: the decimal numerals SQLite itself
/// converts (`CAST(' 12 ' AS INTEGER)`, `'1e3'`, `'12.0'`), and not what Swift's `Double(_:)` also
/// accepts through `strtod` (`'0x10'`, `'0x1p3'`, `'nan'`, `'inf'`), which SQLite and Python's
/// `int()`/`Decimal` read as no number.
enum NumericText {
    /// `[+-]digits[.digits][e[+-]digits]` or `[+-].digits[...]`: at least one digit before the exponent,
    /// ASCII only, no surrounding spaces (trim first).
    static func isNumeral(_ text: some StringProtocol) -> Bool {
        var bytes = text.utf8.makeIterator()
        var next = bytes.next()
        if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { next = bytes.next() }
        var digits = 0, dots = 0
        while let b = next, (48...57).contains(b) || b == UInt8(ascii: ".") {
            if b == UInt8(ascii: ".") { dots += 1 } else { digits += 1 }
            next = bytes.next()
        }
        guard digits > 0, dots <= 1 else { return false }
        guard let e = next else { return true }
        guard e == UInt8(ascii: "e") || e == UInt8(ascii: "E") else { return false }
        next = bytes.next()
        if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { next = bytes.next() }
        var exponentDigits = 0
        while let b = next {
            guard (48...57).contains(b) else { return false }
            exponentDigits += 1
            next = bytes.next()
        }
        return exponentDigits > 0
    }
}
