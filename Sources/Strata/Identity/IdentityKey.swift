/// What the identity map of a table whose key is not the rowid registers a live instance under.
///
/// A single key is its text, as ``TypeRegistry/textKey(_:)`` spells it, compared by UTF-8 bytes as SQLite
/// compares text (``SQLValue/text(_:)``); the single key of a model whose key is an integer is that integer
/// (``TypeRegistry/identity(of:)``: the text `5` names it too), with no text made per row and its hash
/// the integer itself, so the snapshot's word of the key finds its entry again. A composite key is
/// its parts: two integers (two `Int64` parts, two references) as a pair, hashed and compared as two
/// numbers, any other combination as its values. Before, a composite key was registered under its
/// spelling `(1, 2)`, built for every row a fetch read and released; the parts cost a fraction of that.
///
/// ```swift
/// IdentityKey(parts: [.integer(1), .integer(2)])   // .pair(1, 2)
/// IdentityKey(text: "orm")                         // .single(.text("orm"))
/// IdentityKey.integer(42)                          // an integer key's
/// ```
@usableFromInline
enum IdentityKey: Hashable {
    case single(SQLValue)
    /// The single key of a model whose key is an integer.
    case integer(Int64)
    case pair(Int64, Int64)
    case parts([SQLValue])

    /// A single key's text.
    init(text: String) { self = .single(.text(text)) }

    /// A composite key's values, in key order.
    init(parts: [SQLValue]) {
        if parts.count == 2, case .integer(let a) = parts[0], case .integer(let b) = parts[1] {
            self = .pair(a, b)
        } else {
            self = .parts(parts)
        }
    }

    /// The text the key was spelled as before: a single key's text, a composite key's ``CompositeKey``
    /// spelling `(1, 'orm')` (what errors and the key lookups by value show).
    var text: String {
        switch self {
        case .single(let value): if case .text(let text) = value { text } else { "" }
        case .integer(let value): String(value)
        case .pair(let a, let b): CompositeKey(values: [.integer(a), .integer(b)]).description
        case .parts(let values): CompositeKey(values: values).description
        }
    }
}
