import Foundation

/// How one Swift type becomes a column value and back, found once per property type by reflection:
/// a ``ColumnValue`` conformance first, then `Optional` of a storable type, a `RawRepresentable`
/// whose raw value is storable, and finally any `Codable` value as JSON.
struct ValueCodec<Value> {
    let columnType: ColumnType
    let isNullable: Bool
    let encode: (Value) throws -> SQLValue
    let decode: (SQLValue) throws -> Value
    var isJSON = false
}

enum ValueCodecs {
    /// The codec for `type`, or nil when Strata cannot store it.
    static func codec<Value>(for type: Value.Type) -> ValueCodec<Value>? {
        if let storable = type as? any ColumnValue.Type {
            return columnValueCodec(storable) as? ValueCodec<Value>
        }
        if let optional = type as? any OptionalType.Type {
            return optionalCodec(optional.wrappedType) as? ValueCodec<Value>
        }
        if let raw = type as? any RawRepresentable.Type, let codec = rawCodec(raw) {
            return codec as? ValueCodec<Value>
        }
        if let codable = type as? any Codable.Type {
            return jsonCodec(codable) as? ValueCodec<Value>
        }
        return nil
    }

    private static func columnValueCodec<V: ColumnValue>(_ type: V.Type) -> Any {
        ValueCodec<V>(columnType: V.columnType, isNullable: V.isNullable,
                      encode: { try $0.sqlValue }, decode: { try V(sqlValue: $0) }, isJSON: JSONCanonical.kind(of: V.self) != nil)
    }

    private static func optionalCodec(_ wrapped: Any.Type) -> Any? {
        func open<W>(_ type: W.Type) -> Any? {
            guard let inner = codec(for: W.self), !inner.isNullable else { return nil }
            // JSON values written by other tools may hold the JSON text `null` for "none" (pitfall 7).
            let jsonNull: SQLValue? = inner.isJSON ? .text("null") : nil
            return ValueCodec<W?>(columnType: inner.columnType, isNullable: true,
                                  encode: { value in try value.map(inner.encode) ?? .null },
                                  decode: { value in value.isNull || value == jsonNull ? nil : try inner.decode(value) },
                                  isJSON: inner.isJSON)
        }
        return open(wrapped)
    }

    private static func rawCodec<R: RawRepresentable>(_ type: R.Type) -> Any? {
        guard let raw = codec(for: R.RawValue.self) else { return nil }
        return ValueCodec<R>(columnType: raw.columnType, isNullable: false,
                          encode: { try raw.encode($0.rawValue) },
                          decode: { value in
                              guard let result = R(rawValue: try raw.decode(value)) else {
                                  throw ValueConversionError(expected: R.self, found: value, reason: "no case has this raw value")
                              }
                              return result
                          })
    }

    private static func jsonCodec<C: Codable>(_ type: C.Type) -> Any {
        ValueCodec<C>(columnType: .text, isNullable: false,
                      encode: { try JSONCoding.encode($0) }, decode: { try JSONCoding.decode(C.self, from: $0) }, isJSON: true)
    }
}
