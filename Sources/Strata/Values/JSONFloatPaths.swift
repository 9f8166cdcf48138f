import Foundation

/// Where a value's JSON holds floating-point numbers (`Double`, `Float`), so that a column in Python's
/// layout (``ColumnFormat/jsonText(spaced:asciiOnly:)``) gets a whole double as Python writes it, `1.0`:
/// `JSONEncoder` writes `1`, which `json.loads` reads back as an `int`.
///
/// A path is its object keys and, for array elements, ``element`` (any index: a `Set` or a dictionary's
/// key-value pairs are reordered after encoding). A path counts only when every number encoded at it is a
/// floating-point one (an array mixing `Int` and `Double` elements keeps JSONEncoder's text).
///
/// ```swift
/// JSONFloatPaths.of([1.0, 2.5])   // [["\u{0}#"]]
/// ```
enum JSONFloatPaths {
    /// The path component of an array element.
    static let element = "\u{0}#"

    /// The paths of `value`'s floating-point numbers, as JSONEncoder writes the value.
    static func of(_ value: any Encodable) -> Set<[String]> {
        let recorder = Recorder()
        try? value.encode(to: ProbeEncoder(recorder: recorder, path: []))
        return recorder.floats.subtracting(recorder.others)
    }

    final class Recorder {
        var floats: Set<[String]> = []
        var others: Set<[String]> = []

        /// Records a value JSONEncoder writes itself rather than through the value's `encode(to:)`.
        func encode<T: Encodable>(_ value: T, at path: [String]) throws {
            switch value {
            case is Data, is URL, is String: return   // JSONEncoder writes these as strings
            case is Decimal: others.insert(path)       // as a number, whole when it is whole
            case is Double, is Float: floats.insert(path)
            default: try value.encode(to: ProbeEncoder(recorder: self, path: path))
            }
        }
    }

    struct ProbeEncoder: Encoder {
        let recorder: Recorder
        let path: [String]
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed<Key>(recorder: recorder, path: path))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(recorder: recorder, path: path + [element]) }
        func singleValueContainer() -> any SingleValueEncodingContainer { Single(recorder: recorder, path: path) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let recorder: Recorder
        let path: [String]
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode(_ value: Bool, forKey key: Key) throws {}
        mutating func encode(_ value: String, forKey key: Key) throws {}
        mutating func encode(_ value: Double, forKey key: Key) throws { recorder.floats.insert(path + [key.stringValue]) }
        mutating func encode(_ value: Float, forKey key: Key) throws { recorder.floats.insert(path + [key.stringValue]) }
        mutating func encode(_ value: Int, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { recorder.others.insert(path + [key.stringValue]) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try recorder.encode(value, at: path + [key.stringValue])
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Keyed<NestedKey>(recorder: recorder, path: path + [key.stringValue]))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(recorder: recorder, path: path + [key.stringValue, element])
        }
        mutating func superEncoder() -> any Encoder { ProbeEncoder(recorder: recorder, path: path + ["super"]) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { ProbeEncoder(recorder: recorder, path: path + [key.stringValue]) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let recorder: Recorder
        /// The elements' path (ending in ``element``).
        let path: [String]
        var codingPath: [any CodingKey] { [] }
        var count = 0

        mutating func encodeNil() throws { count += 1 }
        mutating func encode(_ value: Bool) throws { count += 1 }
        mutating func encode(_ value: String) throws { count += 1 }
        mutating func encode(_ value: Double) throws { count += 1; recorder.floats.insert(path) }
        mutating func encode(_ value: Float) throws { count += 1; recorder.floats.insert(path) }
        mutating func encode(_ value: Int) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: Int8) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: Int16) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: Int32) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: Int64) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: UInt) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: UInt8) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: UInt16) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: UInt32) throws { count += 1; recorder.others.insert(path) }
        mutating func encode(_ value: UInt64) throws { count += 1; recorder.others.insert(path) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            count += 1
            try recorder.encode(value, at: path)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            count += 1
            return KeyedEncodingContainer(Keyed<NestedKey>(recorder: recorder, path: path))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            count += 1
            return Unkeyed(recorder: recorder, path: path + [element])
        }
        mutating func superEncoder() -> any Encoder {
            count += 1
            return ProbeEncoder(recorder: recorder, path: path)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let recorder: Recorder
        let path: [String]
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws {}
        mutating func encode(_ value: Bool) throws {}
        mutating func encode(_ value: String) throws {}
        mutating func encode(_ value: Double) throws { recorder.floats.insert(path) }
        mutating func encode(_ value: Float) throws { recorder.floats.insert(path) }
        mutating func encode(_ value: Int) throws { recorder.others.insert(path) }
        mutating func encode(_ value: Int8) throws { recorder.others.insert(path) }
        mutating func encode(_ value: Int16) throws { recorder.others.insert(path) }
        mutating func encode(_ value: Int32) throws { recorder.others.insert(path) }
        mutating func encode(_ value: Int64) throws { recorder.others.insert(path) }
        mutating func encode(_ value: UInt) throws { recorder.others.insert(path) }
        mutating func encode(_ value: UInt8) throws { recorder.others.insert(path) }
        mutating func encode(_ value: UInt16) throws { recorder.others.insert(path) }
        mutating func encode(_ value: UInt32) throws { recorder.others.insert(path) }
        mutating func encode(_ value: UInt64) throws { recorder.others.insert(path) }
        mutating func encode<T: Encodable>(_ value: T) throws { try recorder.encode(value, at: path) }
    }
}
