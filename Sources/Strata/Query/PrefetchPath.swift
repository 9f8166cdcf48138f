/// A relationship to prefetch, or a path of them, named by key paths so the compiler checks the names:
/// the typed form of the strings `Database.prefetch(_:of:)` takes (`"employees.manager"`).
///
/// ```swift
/// let departments = try db.objects(Department.self, prefetching: [.to(\.$employees, then: .to(\.$manager))])
/// let staff = try db.objects(Employee.self, prefetching: [\.$department])   // one step: the key path alone
/// ```
public struct PrefetchPath<Root: Model> {
    /// The path as `Database.prefetch(_:of:)` spells it, checked against the models.
    let resolve: () throws -> String

    /// One relationship: a `@Reference`, `@Children` or `@Siblings` property's `$` handle (or a
    /// reference's value).
    ///
    /// ```swift
    /// try db.objects(Employee.self, prefetching: [.to(\.$department)])
    /// ```
    public static func to(_ keyPath: PartialKeyPath<Root>) -> PrefetchPath {
        PrefetchPath { try relationshipName(keyPath) }
    }

    /// A to-many relationship, then `next` from each of its objects.
    ///
    /// ```swift
    /// try db.objects(Department.self, prefetching: [.to(\.$employees, then: .to(\.$manager))])
    /// ```
    public static func to<Next: Model>(_ keyPath: KeyPath<Root, ChildrenHandle<Next>>, then next: PrefetchPath<Next>) -> PrefetchPath {
        PrefetchPath { try relationshipName(keyPath) + "." + next.resolve() }
    }

    /// A to-many relationship through a join table, then `next` from each of its objects.
    ///
    /// ```swift
    /// try db.objects(Post.self, prefetching: [.to(\.$tags, then: .to(\.$owner))])
    /// ```
    public static func to<Next: Model>(_ keyPath: KeyPath<Root, SiblingsHandle<Next>>, then next: PrefetchPath<Next>) -> PrefetchPath {
        PrefetchPath { try relationshipName(keyPath) + "." + next.resolve() }
    }

    /// A reference, then `next` from the object it refers to.
    ///
    /// ```swift
    /// try db.objects(Employee.self, prefetching: [.to(\.$department, then: .to(\.$site))])
    /// ```
    public static func to<Next: Model>(_ keyPath: KeyPath<Root, ReferenceHandle<Next>>, then next: PrefetchPath<Next>) -> PrefetchPath {
        PrefetchPath { try relationshipName(keyPath) + "." + next.resolve() }
    }

    /// The name of the relationship `keyPath` names; throws when it names none.
    static func relationshipName(_ keyPath: AnyKeyPath) throws -> String {
        let metadata = try ModelMetadata.of(Root.self)
        let relationships = metadata.properties.filter { $0.related != nil }.map(\.name) + metadata.childrenByName.keys.sorted()
        guard let name = KeyPathName.name(of: keyPath, in: Root.self, properties: metadata.properties), relationships.contains(name) else {
            throw ModelError(.unknownProperty, model: metadata.typeName, property: "\(keyPath)",
                             "cannot prefetch \(keyPath): it names no relationship of \(metadata.typeName); its relationships are \(relationships.isEmpty ? "none" : relationships.joined(separator: ", "))")
        }
        return name
    }
}

extension Database {
    /// ``prefetch(_:of:)`` for a relationship named by a key path (its `$` handle).
    ///
    /// ```swift
    /// let staff = try db.objects(Employee.self)
    /// try db.prefetch(\.$department, of: staff)
    /// ```
    public func prefetch<T: Model>(_ keyPath: PartialKeyPath<T>, of owners: [T]) throws {
        try prefetch(PrefetchPath<T>.relationshipName(keyPath), of: owners)
    }

    /// ``prefetch(_:of:)`` for a path of relationships named by key paths.
    ///
    /// ```swift
    /// try db.prefetch(.to(\.$employees, then: .to(\.$manager)), of: departments)
    /// ```
    public func prefetch<T: Model>(_ path: PrefetchPath<T>, of owners: [T]) throws {
        try prefetch(path.resolve(), of: owners)
    }

    /// ``objects(_:where:prefetching:_:)`` with the relationships named by key paths; every path is
    /// checked before the query runs.
    ///
    /// ```swift
    /// let staff = try db.objects(Employee.self, where: "WHERE name LIKE ?", prefetching: [\.$department], "A%")
    /// ```
    public func objects<T: Model>(_ type: T.Type, where clause: String = "", prefetching keyPaths: [PartialKeyPath<T>],
                                  _ arguments: any ColumnValue...) throws -> [T] {
        let names = try keyPaths.map { try PrefetchPath<T>.relationshipName($0) }
        let result = try objects(type, where: clause, arguments: arguments)
        for name in names { try prefetch(name, of: result) }
        return result
    }

    /// ``objects(_:where:prefetching:_:)`` with paths of relationships named by key paths; every path is
    /// checked before the query runs.
    ///
    /// ```swift
    /// let departments = try db.objects(Department.self, prefetching: [.to(\.$employees, then: .to(\.$manager))])
    /// ```
    public func objects<T: Model>(_ type: T.Type, where clause: String = "", prefetching paths: [PrefetchPath<T>],
                                  _ arguments: any ColumnValue...) throws -> [T] {
        let names = try paths.map { try $0.resolve() }
        let result = try objects(type, where: clause, arguments: arguments)
        for name in names { try prefetch(name, of: result) }
        return result
    }
}
