/// How a key read from a column becomes the key as a model's instances hold it: the canonical form, what
/// the key property encodes to (a `UUID` as lowercase dashed text, an integer as an integer), whatever
/// format the column stores it in (32 hex digits, 16 bytes, `'1'` or `2.0` for an integer). Keys meet the
/// identity map, groupings and comparisons in this form; a relationship column keeps its own format, which
/// its ``ColumnFormat`` writes back.
enum KeyForm {
    /// Integer keys: a REAL or a TEXT stands for the integer SQLite's `=` against an INTEGER PRIMARY KEY
    /// finds for it (`2.0`, `'1'`, `' 1e1 '`), when it is a whole number that fits.
    case integer
    /// Other keys (text, UUIDs): decoded by the key type's codec and encoded again.
    case decoded((SQLValue) throws -> SQLValue)
    /// Keys taken as they are stored (a key Strata cannot read alone: a composite one).
    case asStored

    /// The form of keys of type `keyType` (a key property's type), whose column type is `columnType`.
    static func of(keyType: Any.Type, columnType: ColumnType) -> KeyForm {
        if columnType == .integer { return .integer }
        func open<V>(_ type: V.Type) -> KeyForm {
            guard let codec = ValueCodecs.codec(for: V.self) else { return .asStored }
            return .decoded { try codec.encode(codec.decode($0)) }
        }
        return open(keyType)
    }

    /// Whether keys are integers (a reference then reads INTEGER values as they are, on its fast path).
    var isInteger: Bool {
        if case .integer = self { true } else { false }
    }

    /// The canonical form of a stored key; a value that is no key of this form (a dangling `'x'`) stays as
    /// it is, and finds no row.
    func canonical(_ stored: SQLValue) -> SQLValue {
        switch self {
        case .integer:
            switch stored {
            case .real(let value): return Int64(exactly: value).map(SQLValue.integer) ?? stored
            case .text(let text): return Self.integer(numericText: text).map(SQLValue.integer) ?? stored
            default: return stored
            }
        case .decoded(let convert):
            if stored.isNull { return stored }
            return (try? convert(stored)) ?? stored
        case .asStored:
            return stored
        }
    }

    /// The integer a text stands for when SQLite compares it with an INTEGER column: a decimal number
    /// (spaces around it, an optional sign, fraction and exponent; no hex) that is whole and fits in 64
    /// bits; nil otherwise.
    ///
    /// ```swift
    /// KeyForm.integer(numericText: " 1e1 ")   // 10
    /// KeyForm.integer(numericText: "0x10")    // nil
    /// ```
    static func integer(numericText text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0d).contains(byte) }
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
        var start = 0, end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        var i = start, digits = 0, whole = true
        if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        while i < end, isDigit(bytes[i]) { i += 1; digits += 1 }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            whole = false
            i += 1
            while i < end, isDigit(bytes[i]) { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            whole = false
            i += 1
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let exponent = i
            while i < end, isDigit(bytes[i]) { i += 1 }
            guard i > exponent else { return nil }
        }
        guard i == end else { return nil }
        let number = String(decoding: bytes[start..<end], as: UTF8.self)
        if whole, let value = Int64(number) { return value }
        return Double(number).flatMap { Int64(exactly: $0) }
    }
}

/// What a relationship needs to know of the related model's key, found from its key field alone (a
/// relationship asks while its owner is being reflected, which must not reflect the whole related type;
/// one look at the related type's fields serves all three).
struct RelatedKey {
    /// The key column's type (INTEGER when the key is not a single storable property).
    let columnType: ColumnType
    /// The key's format kind (`.uuid` for a UUID key), which decides a relationship column's format as it
    /// does for a property of the key's type.
    let formatKind: ColumnFormat.Kind?
    /// How a stored key becomes the key as the related instances hold it.
    let form: KeyForm

    /// The key of `type`.
    init(of type: any Model.Type) {
        self.init(keyType: type.compositeKey.isEmpty ? ModelMetadata.keyField(of: type)?.type : nil)
    }

    /// A key property of type `keyType` (nil: none that one column holds).
    init(keyType: Any.Type?) {
        guard let keyType, let made = FieldAccessor.make(type: keyType, offset: 0) else {
            (columnType, formatKind, form) = (.integer, nil, .asStored)
            return
        }
        columnType = made.1
        formatKind = PropertyMetadata.formatKind(of: keyType)
        form = KeyForm.of(keyType: keyType, columnType: made.1)
    }
}

extension ColumnFormat {
    /// A canonical key as a column of this format stores it (a UUID as 32 hex digits, say), for binding
    /// into a relationship's or a join table's column; a value the format cannot take is given as it is
    /// (it then matches nothing).
    func storedKey(_ key: SQLValue) -> SQLValue {
        self == .native ? key : (try? stored(key)) ?? key
    }
}

extension SQLValue {
    /// The values a key may be stored as in a column: an integer key in a column with no type (BLOB
    /// affinity, where SQLite compares the text '1' and the integer 1 as different, but a reference reads
    /// both as key 1) is looked up as the integer and as its decimal text; any other key as itself. (A REAL
    /// `1.0` equals the integer already; other spellings, `' 1e1 '`, are not found this way.) A text key
    /// that an integer's decimal text spells ('1', not '01') is also looked up as that integer, which a
    /// foreign key to a TEXT key reads as that text.
    func keyForms(untypedColumn: Bool) -> [SQLValue] {
        guard untypedColumn else { return [self] }
        switch self {
        case .integer(let value): return [self, .text(String(value))]
        case .text(let text):
            guard text.utf8.count <= 20, let value = Int64(text), String(value) == text else { return [self] }
            return [self, .integer(value)]
        default: return [self]
        }
    }
}

/// The collating sequence a text key compares by (a primary key declared `COLLATE NOCASE`), which a
/// foreign key to it uses too: a child row holding 'ada' refers to the parent 'Ada'.
enum KeyCollation: Equatable {
    /// Bytes (the default): a key equals only itself.
    case binary
    /// ASCII letters folded to lowercase, as SQLite's NOCASE does (no other letter: 'Ä' and 'ä' differ).
    case noCase
    /// Trailing spaces ignored, as SQLite's RTRIM does.
    case rtrim
    /// An application's collating sequence, which only SQLite can apply.
    case other(String)

    init(name: String) {
        switch name.uppercased() {
        case "BINARY", "": self = .binary
        case "NOCASE": self = .noCase
        case "RTRIM": self = .rtrim
        default: self = .other(name)
        }
    }

    /// ` COLLATE NOCASE` (empty for BINARY): appended to a column compared with keys.
    var clause: String {
        switch self {
        case .binary: ""
        case .noCase: " COLLATE NOCASE"
        case .rtrim: " COLLATE RTRIM"
        case .other(let name): " COLLATE " + SQL.quote(name)
        }
    }

    /// The form of `key` that equals, by Swift's equality of ``SQLValue``, the form of every key this
    /// collation finds equal to it (a text key folded; other values as they are). Not defined for an
    /// application's collation (``other(_:)``), where it gives the key as it is.
    func folded(_ key: SQLValue) -> SQLValue {
        guard case .text(let text) = key else { return key }
        switch self {
        case .binary, .other: return key
        case .noCase: return .text(text.sqlFolded)
        case .rtrim:
            var bytes = Array(text.utf8)
            while bytes.last == 0x20 { bytes.removeLast() }
            return bytes.count == text.utf8.count ? key : .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}
