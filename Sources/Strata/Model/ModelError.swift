/// A model that cannot be used as declared, or an operation a model instance cannot take part in.
///
/// ```swift
/// do { try db.save(employee) }
/// catch let error as ModelError { print(error) }  // Employee: persistentProperties names "nmae", ...
/// ```
public struct ModelError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem. ```swift if error.kind == .unknownProperty { ... } ```
    public enum Kind: String, Sendable {
        /// A declaration names a property the class does not have.
        case unknownProperty
        /// A property's type cannot be stored in a column.
        case unsupportedType
        /// The primary key is missing or of a type that cannot be a key.
        case invalidPrimaryKey
        /// The instance belongs to another database handle.
        case foreignInstance
        /// The instance was deleted.
        case deleted
        /// Another live instance already stands for the same row.
        case duplicateInstance
        /// A related object has not been saved yet, so it has no key to store.
        case unsavedRelated
        /// The instance is not attached to a database.
        case detached
        /// No row has the key.
        case notFound
    }
    /// The kind. ```swift error.kind  // .unknownProperty ```
    public let kind: Kind
    /// The model type's name. ```swift error.model  // "Employee" ```
    public let model: String
    /// The property, when one is concerned. ```swift error.property  // "nmae" ```
    public let property: String?
    /// A sentence saying what is wrong and what to do. ```swift print(error.message) ```
    public let message: String

    init(_ kind: Kind, model: String, property: String? = nil, _ message: String) {
        self.kind = kind
        self.model = model
        self.property = property
        self.message = message
    }

    /// "Model Employee, property nmae: ...". ```swift print(error) ```
    public var description: String {
        "Model \(model)\(property.map { ", property \($0)" } ?? ""): \(message)"
    }
}
