/// A model that cannot be used as declared, or an operation a model instance cannot take part in.
///
/// ```swift
/// do { try db.save(employee) }
/// catch let error as ModelError { print(error) }  // Employee: persistentProperties names "nmae", ...
/// ```
public struct ModelError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem.
    ///
    /// ```swift
    /// if error.kind == .unknownProperty { ... }
    /// ```
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
        /// No row has the key (for a save: the row was deleted or re-keyed since the instance read it, and
        /// the instance is now marked deleted: a save never re-creates a row behind another writer's back).
        case notFound
        /// Another connection (or raw SQL) changed a column that this instance also changed and has not
        /// saved; the instance now holds the committed values. ``ModelError/properties`` names the columns.
        /// Retry the change (``Database/retryingOnConflict(maxAttempts:_:)``).
        case conflict
        /// A row with this key, or with these values of a UNIQUE index, exists already.
        case duplicateKey
        /// The instance could not be refreshed from its row (a value another tool wrote does not decode):
        /// it keeps its previous values, and saving it throws until it is fetched or refreshed again.
        case stale
        /// The model cannot write: it is read-only (``ModelDeclaration/isReadOnly``), its table is a view
        /// without INSTEAD OF triggers, the properties changed map to generated columns, or the table
        /// skipped the write (a trigger's `RAISE(IGNORE)`, an `ON CONFLICT IGNORE` constraint).
        case readOnly
        /// An insert would leave NOT NULL columns without a default empty: the model does not map them.
        /// ``ModelError/properties`` names the columns.
        case missingColumns
        /// A save would store NULL in a NOT NULL column: the property (a reference, say) holds nil.
        case missingValue
    }
    /// The kind.
    ///
    /// ```swift
    /// error.kind  // .unknownProperty
    /// ```
    public let kind: Kind
    /// The model type's name.
    ///
    /// ```swift
    /// error.model  // "Employee"
    /// ```
    public let model: String
    /// The property, when one is concerned.
    ///
    /// ```swift
    /// error.property  // "nmae"
    /// ```
    public let property: String?
    /// A sentence saying what is wrong and what to do.
    ///
    /// ```swift
    /// print(error.message)
    /// ```
    public let message: String
    /// The key of the row concerned, when there is one.
    ///
    /// ```swift
    /// if error.kind == .conflict { print("row", error.key ?? .null) }
    /// ```
    public let key: SQLValue?
    /// The properties concerned (for ``Kind/conflict``: the columns both sides changed; for
    /// ``Kind/duplicateKey``: the key or the UNIQUE index's columns).
    ///
    /// ```swift
    /// if error.kind == .conflict { print(error.properties) }  // ["counter"]
    /// ```
    public let properties: [String]

    init(_ kind: Kind, model: String, property: String? = nil, key: SQLValue? = nil, properties: [String] = [], _ message: String) {
        self.kind = kind
        self.model = model
        self.property = property ?? properties.first
        self.message = message
        self.key = key
        self.properties = properties.isEmpty ? property.map { [$0] } ?? [] : properties
    }

    /// "Model Employee, property nmae: ...".
    ///
    /// ```swift
    /// print(error)
    /// ```
    ///
    /// Long lists of properties and long messages are cut (see ``DatabaseError/description``).
    public var description: String {
        let where_ = properties.count > 1
            ? ", properties \(ErrorText.list(properties, separator: ", ", of: "properties"))"
            : property.map { ", property \($0)" } ?? ""
        return "Model \(model)\(key.map { ", key \($0)" } ?? "")\(where_): \(ErrorText.clipped(message, limit: ErrorText.sqlLimit))"
    }
}
