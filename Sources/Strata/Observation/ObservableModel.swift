#if canImport(Observation)
import Observation

/// A model declared `@Observable` whose live instances also tell Observation (and so SwiftUI) when
/// Strata changes them: a refresh after raw SQL, another connection's commit or a rollback, a cascade,
/// a delete. Changes made through the properties' setters notify by themselves (the macro's doing);
/// Strata writes the stored values directly, so it notifies through the key paths listed here: every
/// listed key path, whenever any property of the instance changed (Swift gives a library no way to
/// find a property's key path from its name).
///
/// ```swift
/// @Observable final class Note: Model, ObservableModel {
///     static var observedKeyPaths: [PartialKeyPath<Note>] { [\.title, \.body] }
///     var id: Int64 = 0
///     var title = ""
///     var body = ""
///     required init() {}
/// }
/// ```
///
/// Any `@Observable` model works with Strata (the macro's `_title` storage maps to the `title` column);
/// conforming to this protocol adds the notifications. Observation needs macOS 14, iOS 17, tvOS 17 or
/// watchOS 10; on Linux it ships with the toolchain.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public protocol ObservableModel: Model, Observable {
    /// The key paths of the properties views read (usually every persistent property).
    /// (A computed property: key paths are not `Sendable`, so a stored `static let` would not compile.)
    /// ```swift
    /// static var observedKeyPaths: [PartialKeyPath<Note>] { [\.title, \.body] }
    /// ```
    static var observedKeyPaths: [PartialKeyPath<Self>] { get }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension ObservableModel {
    /// Tells the instance's observers that every listed property changed.
    static func notifyObservers(of object: ModelObject) {
        guard let subject = object as? Self,
              let registrar = Mirror(reflecting: subject).descendant("_$observationRegistrar") as? ObservationRegistrar else { return }
        for keyPath in observedKeyPaths { keyPath.announceMutation(registrar, of: subject) }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension PartialKeyPath where Root: Observable {
    /// `registrar.withMutation` for a key path whose value type is known only at run time.
    fileprivate func announceMutation(_ registrar: ObservationRegistrar, of subject: Root) {
        func typed<Value>(_: Value.Type) {
            if let keyPath = self as? KeyPath<Root, Value> { registrar.withMutation(of: subject, keyPath: keyPath) {} }
        }
        _openExistential(type(of: self).valueType, do: typed)
    }
}
#endif

enum ObservationSupport {
    /// The field the `@Observable` macro adds; its other stored properties are `_name`.
    static let registrarField = "_$observationRegistrar"

    /// What tells an instance's observers it changed (nil: not an ``ObservableModel``). `hasRegistrar`
    /// (the type has ``registrarField``) spares the conformance lookup for every other model.
    static func notifier(for type: Any.Type, hasRegistrar: Bool) -> ((ModelObject) -> Void)? {
        #if canImport(Observation)
        guard hasRegistrar else { return nil }
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *), let observable = type as? any ObservableModel.Type {
            return { observable.notifyObservers(of: $0) }
        }
        #endif
        return nil
    }

    /// A reflected field's property name: the `@Observable` macro stores `title` as `_title`.
    static func propertyName(_ field: String, observable: Bool) -> String {
        observable && field.hasPrefix("_") && !field.hasPrefix("_$") ? String(field.dropFirst()) : field
    }
}
