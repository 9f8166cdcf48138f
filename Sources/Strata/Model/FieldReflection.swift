/// One stored field of a class, as the Swift runtime describes it.
struct ReflectedField {
    let name: String
    let offset: Int
    let type: Any.Type
    /// `var` (false for `let`, whose value the optimiser may assume never changes).
    let isVar: Bool
    /// A strong reference or a value (false for `weak` and `unowned`).
    let isStrong: Bool
}

/// Reads a class's stored fields (its superclasses' included, in layout order) from the runtime's
/// reflection metadata: the same entry points the standard library's `_forEachField` uses, called
/// directly because `_forEachField` does not report whether a field is `var` or strong, and Strata must
/// never write to a `let` (undefined behaviour the optimiser exploits) or store a strong reference into a
/// `weak` field.
enum FieldReflection {
    /// The fields a model declares (its base class's left out), named as its properties: an `@Observable`
    /// model's `_title` storage is `title`, and its `_$observationRegistrar` is left out.
    static func persistentFields(of type: AnyClass) -> [ReflectedField] {
        let observable = ObservationSupport.isObservable(type)
        return fields(of: type).dropFirst(fields(of: ModelObject.self).count).compactMap { field in
            guard observable else { return field }
            if field.name.hasPrefix("_$") { return nil }
            return ReflectedField(name: ObservationSupport.propertyName(field.name, observable: true), offset: field.offset,
                                  type: field.type, isVar: field.isVar, isStrong: field.isStrong)
        }
    }

    static func fields(of type: AnyClass) -> [ReflectedField] {
        let count = reflectionRecursiveCount(type)
        var fields: [ReflectedField] = []
        fields.reserveCapacity(count)
        for index in 0..<count {
            var metadata = FieldMetadata()
            let fieldType = reflectionChildMetadata(type, index: index, fieldMetadata: &metadata)
            let name = metadata.name.map { String(cString: $0) } ?? ""
            metadata.freeFunc?(metadata.name)
            fields.append(ReflectedField(name: name, offset: reflectionChildOffset(type, index: index), type: fieldType,
                                         isVar: metadata.isVar, isStrong: metadata.isStrong))
        }
        return fields
    }
}

/// The runtime's `_FieldReflectionMetadata` (stdlib/public/SwiftShims/swift/shims/Reflection.h).
private struct FieldMetadata {
    var name: UnsafePointer<CChar>?
    var freeFunc: (@convention(c) (UnsafePointer<CChar>?) -> Void)?
    var isStrong = false
    var isVar = false
}

@_silgen_name("swift_reflectionMirror_recursiveCount")
private func reflectionRecursiveCount(_ type: Any.Type) -> Int

@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func reflectionChildMetadata(_ type: Any.Type, index: Int, fieldMetadata: UnsafeMutablePointer<FieldMetadata>) -> Any.Type

@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func reflectionChildOffset(_ type: Any.Type, index: Int) -> Int
