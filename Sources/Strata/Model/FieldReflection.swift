@_spi(Reflection) import Swift
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One stored field of a class, as the Swift runtime describes it.
struct ReflectedField: Equatable {
    let name: String
    let offset: Int
    let type: Any.Type
    /// `var` (false for `let`, whose value the optimiser may assume never changes).
    let isVar: Bool
    /// A strong reference or a value (false for `weak` and `unowned`).
    let isStrong: Bool

    static func == (a: ReflectedField, b: ReflectedField) -> Bool {
        a.name == b.name && a.offset == b.offset && a.type == b.type && a.isVar == b.isVar && a.isStrong == b.isStrong
    }
}

/// Reads a class's stored fields (its superclasses' included, in layout order).
///
/// Two paths, with the same names, offsets and types:
/// - **runtime**: the reflection entry points the standard library itself calls
///   (`swift_reflectionMirror_recursiveCount`, `…ChildMetadata`, `…ChildOffset`), looked up by name at
///   run time, because only they report whether a field is `var` and strong — Strata must never write to
///   a `let` (undefined behaviour the optimiser exploits) or store into a `weak` field;
/// - **standard library**: its reflection SPI `_forEachField`, used when a toolchain no longer exports
///   those names. It cannot tell `let` from `var` nor weak from strong, so every field counts as a strong
///   `var`; weak fields hold class types, which are never storable, so only `let` goes unchecked then.
/// Nothing is linked against the private names: a missing one selects the second path, never a crash.
enum FieldReflection {
    enum Path { case runtime, standardLibrary }

    /// The path in use: the runtime's entry points when all three are found.
    static let path: Path = RuntimeEntryPoints.shared == nil ? .standardLibrary : .runtime

    /// The fields a model declares (its base class's left out), named as its properties: an `@Observable`
    /// model's `_title` storage is `title`, and its `_$observationRegistrar` is left out.
    static func persistentFields(of type: AnyClass) -> [ReflectedField] {
        let declared = fields(of: type).dropFirst(baseFieldCount)
        // The macro's registrar field says it, without a protocol conformance lookup (a scan of every
        // conformance record in the process on a type's first check, a large part of a cold first use).
        let observable = declared.contains { $0.name == ObservationSupport.registrarField }
        return declared.compactMap { field in
            guard observable else { return field }
            if field.name.hasPrefix("_$") { return nil }
            return ReflectedField(name: ObservationSupport.propertyName(field.name, observable: true), offset: field.offset,
                                  type: field.type, isVar: field.isVar, isStrong: field.isStrong)
        }
    }

    /// The stored fields of ``ModelObject`` (the bookkeeping every model inherits), counted once.
    private static let baseFieldCount = fields(of: ModelObject.self).count

    static func fields(of type: AnyClass, using path: Path = FieldReflection.path) -> [ReflectedField] {
        if path == .runtime, let runtime = RuntimeEntryPoints.shared { return runtime.fields(of: type) }
        var fields: [ReflectedField] = []
        // Option 1 is `.classType` (its static member is not concurrency-safe to name in Swift 6).
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, offset, fieldType, _ in
            fields.append(ReflectedField(name: propertyName(String(cString: name)), offset: offset, type: fieldType, isVar: true, isStrong: true))
            return true
        }
        return fields
    }

    /// The property's name as its declaration spells it: the compiler's field metadata keeps the backticks
    /// around a raw identifier and spells its spaces U+00A0 (`` var `first name` `` is reflected as
    /// `` `first\u{A0}name` ``), which would otherwise become the column's name and differ from the name
    /// the model's declarations (`columnNames`, indices) and queries use.
    ///
    /// ```swift
    /// FieldReflection.propertyName("`first\u{A0}name`")  // "first name"
    /// ```
    static func propertyName(_ reflected: String) -> String {
        guard reflected.count >= 2, reflected.hasPrefix("`"), reflected.hasSuffix("`") else { return reflected }
        return String(reflected.dropFirst().dropLast().map { $0 == "\u{A0}" ? " " : $0 })
    }
}

/// The runtime's `_FieldReflectionMetadata` (stdlib/public/SwiftShims/swift/shims/Reflection.h).
private struct FieldMetadata {
    var name: UnsafePointer<CChar>?
    var freeFunc: (@convention(c) (UnsafePointer<CChar>?) -> Void)?
    var isStrong = false
    var isVar = false
}

/// The three runtime functions, found with `dlsym`. They use Swift's calling convention, which for
/// arguments and results that are all pointer-sized integers or pointers (no context, no error) passes
/// them exactly as C does, so calling them through C function pointers is sound.
private struct RuntimeEntryPoints: @unchecked Sendable {
    typealias Count = @convention(c) (UnsafeRawPointer) -> Int
    typealias ChildMetadata = @convention(c) (UnsafeRawPointer, Int, UnsafeMutableRawPointer) -> UnsafeRawPointer
    typealias ChildOffset = @convention(c) (UnsafeRawPointer, Int) -> Int
    let count: Count
    let childMetadata: ChildMetadata
    let childOffset: ChildOffset

    static let shared: RuntimeEntryPoints? = {
        guard let process = dlopen(nil, RTLD_NOW),
              let count = dlsym(process, "swift_reflectionMirror_recursiveCount"),
              let metadata = dlsym(process, "swift_reflectionMirror_recursiveChildMetadata"),
              let offset = dlsym(process, "swift_reflectionMirror_recursiveChildOffset") else { return nil }
        return RuntimeEntryPoints(count: unsafeBitCast(count, to: Count.self),
                                  childMetadata: unsafeBitCast(metadata, to: ChildMetadata.self),
                                  childOffset: unsafeBitCast(offset, to: ChildOffset.self))
    }()

    func fields(of type: AnyClass) -> [ReflectedField] {
        let metadataPointer = unsafeBitCast(type as Any.Type, to: UnsafeRawPointer.self)
        let total = count(metadataPointer)
        var fields: [ReflectedField] = []
        fields.reserveCapacity(total)
        for index in 0..<total {
            var metadata = FieldMetadata()
            let fieldType = withUnsafeMutablePointer(to: &metadata) { childMetadata(metadataPointer, index, UnsafeMutableRawPointer($0)) }
            let name = FieldReflection.propertyName(metadata.name.map { String(cString: $0) } ?? "")
            metadata.freeFunc?(metadata.name)
            fields.append(ReflectedField(name: name, offset: childOffset(metadataPointer, index),
                                         type: unsafeBitCast(fieldType, to: Any.Type.self),
                                         isVar: metadata.isVar, isStrong: metadata.isStrong))
        }
        return fields
    }
}
