/// The kind of value a result column holds in the current row: what every engine's cursor reports.
///
/// A struct over a small integer rather than an enum, so that the SQLite cursor hands out its own storage
/// class without a conversion on the hot path (the raw values are SQLite's type codes, which the SQLite
/// driver checks at compile time; another engine maps its types onto these five).
///
/// ```swift
/// if cursor.kind(at: 0) == .integer { print(cursor.int64(at: 0)) }
/// ```
package struct ColumnKind: Equatable, Hashable, Sendable {
    package let rawValue: Int32

    @inline(__always) package init(rawValue: Int32) { self.rawValue = rawValue }

    /// A 64-bit signed integer.
    package static let integer = ColumnKind(rawValue: 1)
    /// A 64-bit IEEE float.
    package static let real = ColumnKind(rawValue: 2)
    /// UTF-8 text (possibly not valid UTF-8 when another tool wrote it).
    package static let text = ColumnKind(rawValue: 3)
    /// Bytes.
    package static let blob = ColumnKind(rawValue: 4)
    /// NULL.
    package static let null = ColumnKind(rawValue: 5)
}
