import Foundation

/// A `$property` handle that knows the wrapper storage it came from (``ReferenceHandle``,
/// ``ChildrenHandle``, ``SiblingsHandle``), so a key path to it names that property.
protocol StorageNaming {
    var storagePath: AnyKeyPath? { get }
}

extension ReferenceHandle: StorageNaming {}
extension ChildrenHandle: StorageNaming {}
extension SiblingsHandle: StorageNaming {}

/// Which property of a model a key path names, as ``ModelMetadata`` spells it (`department` for
/// `@Reference var department`, `employees` for `@Children var employees`, `title` for an `@Observable`
/// model's `title`): found once per key path on a scratch instance, then cached.
///
/// A key path names a property when it is
/// - a stored property (`\.name`): its field's address in a scratch instance;
/// - a relationship's handle (`\.$department`, `\.$employees`, `\.$tags`): the handle's storage;
/// - a `@Reference`'s value (`\.department`): the reference field that holds an object set through it;
/// - an `@Observable` model's property (`\.title`, which the macro stores as `_title`): the field of its
///   type whose change the key path reads back.
enum KeyPathName {
    private static let cache = Locked<[AnyKeyPath: String]>([:])

    /// The property's name; nil when the key path names none (a computed property, a chain, a `let`).
    static func name<Root: ModelObject>(of keyPath: AnyKeyPath, in root: Root.Type, properties: [PropertyMetadata]) -> String? {
        if let name = cache.withLock({ $0[keyPath] }) { return name }
        let fields = FieldReflection.persistentFields(of: Root.self)
        func visible(_ field: ReflectedField) -> String {
            field.name.hasPrefix("_") && (field.type is any ReferenceStorage.Type || field.type is any TransientStorage.Type)
                ? String(field.name.dropFirst()) : field.name
        }
        func field(at offset: Int?) -> String? {
            offset.flatMap { offset in fields.first { $0.offset == offset }.map(visible) }
        }
        func open<Value>(_: Value.Type) -> String? {
            guard let typed = keyPath as? KeyPath<Root, Value> else { return nil }
            // A stored property.
            if let stored = field(at: storedOffset(of: typed, in: Root())),
               fields.contains(where: { visible($0) == stored && $0.type == Value.self }) {
                return stored
            }
            // A relationship's handle: its storage.
            if Value.self is any StorageNaming.Type {
                let scratch = Root()
                guard let storage = (scratch[keyPath: typed] as? any StorageNaming)?.storagePath else { return nil }
                return field(at: storedOffset(of: storage, in: scratch))
            }
            // A reference's value: the reference field that holds what is set through it.
            if let writable = typed as? ReferenceWritableKeyPath<Root, Value> {
                for property in properties {
                    guard let related = property.related, case .generic(let io) = property.accessor,
                          let marker = related.init() as? Value else { continue }
                    let scratch = Root()
                    scratch[keyPath: writable] = marker
                    if let held = io.heldTarget(of: scratch), held === (marker as AnyObject) { return property.name }
                }
            }
            // An @Observable model's property: the field of its type whose change it reads back.
            guard fields.contains(where: { $0.name == ObservationSupport.registrarField })
                    || FieldReflection.fields(of: Root.self).contains(where: { $0.name == ObservationSupport.registrarField }) else { return nil }
            let baseline = String(describing: Root()[keyPath: typed])
            for candidate in fields where candidate.type == Value.self {
                guard let property = properties.first(where: { $0.name == candidate.name }) else { continue }
                let scratch = Root()
                for marker in Self.markers(for: property, in: scratch) {
                    guard (try? property.accessor.store(marker, into: scratch)) != nil else { continue }
                    if String(describing: scratch[keyPath: typed]) != baseline { return candidate.name }
                }
            }
            return nil
        }
        guard let name = _openExistential(type(of: keyPath).valueType, do: open) else { return nil }
        cache.withLock { $0[keyPath] = name }
        return name
    }

    /// Values that differ from `property`'s default in `scratch`, for the `@Observable` probe.
    private static func markers(for property: PropertyMetadata, in scratch: ModelObject) -> [SQLValue] {
        let current = (try? property.accessor.load(scratch)) ?? .null
        switch current {
        case .integer(let value): return [.integer(value == 1 ? 0 : 1)]
        case .real(let value): return [.real(value + 1)]
        case .text(let text): return [.text(text + "x"), .text("00000000-0000-0000-0000-00000000000" + (text.hasSuffix("1") ? "2" : "1"))]
        case .blob(let bytes): return [.blob(bytes + Data([1]))]
        default: return [.integer(1), .text("x"), .real(1.5), .text("00000000-0000-0000-0000-000000000001"), .blob(Data([1]))]
        }
    }

    /// The offset of the stored property `keyPath` names in `scratch` (see ``storedOffset(of:in:)``), for a
    /// key path whose value type is known only at run time.
    private static func storedOffset<Root: ModelObject>(of keyPath: AnyKeyPath, in scratch: Root) -> Int? {
        func open<Value>(_: Value.Type) -> Int? {
            (keyPath as? KeyPath<Root, Value>).flatMap { Strata.storedOffset(of: $0, in: scratch) }
        }
        return _openExistential(type(of: keyPath).valueType, do: open)
    }
}
