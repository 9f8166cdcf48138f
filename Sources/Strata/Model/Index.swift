/// An index declared with key paths, so the compiler checks the property names: the typed form of
/// ``ModelDeclaration/indices`` and ``ModelDeclaration/uniqueIndices``, which becomes the same index as
/// the list of names would (its columns in the key paths' order).
///
/// ```swift
/// final class Person: Model {
///     static let indices: [Index<Person>] = [[\.lastName, \.firstName], [\.$employer]]
///     static let uniqueIndices: [Index<Person>] = [[\.email]]
///     var id: Int64 = 0
///     var firstName = ""
///     var lastName = ""
///     var email = ""
///     @Reference var employer: Company?
///     required init() {}
/// }
/// ```
///
/// A key path names a stored property, a `@Reference` (`\.$employer` or `\.employer`) or an
/// `@Observable` model's property; one that names none (a computed property) throws
/// ``ModelError/Kind/unknownProperty`` at the model's first use.
public struct Index<Root: AnyObject>: ExpressibleByArrayLiteral, Sendable {
    let keyPaths: [any PartialKeyPath<Root> & Sendable]

    /// An index over the properties `keyPaths` name, in that order.
    ///
    /// ```swift
    /// static let indices: [Index<Person>] = [[\.lastName, \.firstName]]
    /// ```
    public init(arrayLiteral keyPaths: any PartialKeyPath<Root> & Sendable...) {
        self.keyPaths = keyPaths
    }

    /// An index over the properties `keyPaths` name, in that order.
    ///
    /// ```swift
    /// static let indices = [Index<Person>(\.lastName, \.firstName)]
    /// ```
    public init(_ keyPaths: any PartialKeyPath<Root> & Sendable...) {
        self.keyPaths = keyPaths
    }
}

/// The key-path forms of a model's index declarations (``Index``); ``ModelDeclaration`` refines it, so a
/// model declares `static let indices: [Index<Self>]` as it would `[[String]]`.
///
/// ```swift
/// static let indices: [Index<Person>] = [[\.lastName, \.firstName]]
/// ```
public protocol KeyPathIndexDeclaration: AnyObject {
    /// Indices to keep, each a list of key paths. Default: none.
    ///
    /// ```swift
    /// static let indices: [Index<Person>] = [[\.lastName, \.firstName]]
    /// ```
    static var indices: [Index<Self>] { get }
    /// Unique indices to keep, each a list of key paths. Default: none.
    ///
    /// ```swift
    /// static let uniqueIndices: [Index<Person>] = [[\.email]]
    /// ```
    static var uniqueIndices: [Index<Self>] { get }
}

extension KeyPathIndexDeclaration {
    /// None (the name lists of ``ModelDeclaration/indices`` are used).
    ///
    /// ```swift
    /// let none: [Index<Department>] = Department.indices   // []
    /// ```
    @_disfavoredOverload public static var indices: [Index<Self>] { [] }
    /// None (the name lists of ``ModelDeclaration/uniqueIndices`` are used).
    ///
    /// ```swift
    /// let none: [Index<Department>] = Department.uniqueIndices   // []
    /// ```
    @_disfavoredOverload public static var uniqueIndices: [Index<Self>] { [] }
}

extension ModelMetadata {
    /// The key-path indices of `type` (``Index``) as property names, each with whether it is unique;
    /// `properties` are the model's, as reflected so far.
    static func keyPathIndices(of type: any Model.Type, properties: [PropertyMetadata], typeName: String) throws -> [(names: [String], unique: Bool)] {
        func open<T: Model>(_ type: T.Type) throws -> [(names: [String], unique: Bool)] {
            var result: [(names: [String], unique: Bool)] = []
            let declared: [(list: [Index<T>], unique: Bool)] = [(T.indices, false), (T.uniqueIndices, true)]
            for (list, unique) in declared {
                for (position, index) in list.enumerated() {
                    let names = try index.keyPaths.enumerated().map { place, keyPath in
                        guard let name = KeyPathName.name(of: keyPath, in: T.self, properties: properties),
                              properties.contains(where: { $0.name == name }) else {
                            throw ModelError(.unknownProperty, model: typeName, property: "\(keyPath)",
                                             "\(unique ? "uniqueIndices" : "indices")[\(position)][\(place)] (\(keyPath)) names no persistent property of \(typeName) (a computed property, a chain, or one left out of persistentProperties); its persistent properties are \(properties.map(\.name).joined(separator: ", "))")
                        }
                        return name
                    }
                    if !names.isEmpty { result.append((names, unique)) }
                }
            }
            return result
        }
        return try open(type)
    }
}
