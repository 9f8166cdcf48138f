// Key-path conditions on relationships: a reference compared with objects (their keys, bound in the
// column's stored format), a condition through a reference (a subquery on the related table), and a
// condition over children (an EXISTS subquery).

/// `reference == object`: rows whose reference holds `object`'s key (`IS NULL` for nil). The object must be
/// saved (its key is bound as the column stores keys: a UUID as 32 hex digits where the column holds
/// those).
///
/// ```swift
/// let books = try db.objects(Book.self, where: \.author == tolkien)
/// let orphans = try db.objects(Book.self, where: \.author == nil)
/// ```
public func == <Root: Model, Related: Model>(lhs: KeyPath<Root, Related?>, rhs: Related?) -> QueryCondition<Root> {
    guard let rhs else { return QueryCondition(node: .isNull(KeyPathTerm(lhs), true)) }
    return QueryCondition(node: .custom(ReferenceMatch(term: KeyPathTerm(lhs), objects: [rhs], negated: false).render))
}

/// `reference != object`: rows whose reference holds another key (not NULL, as SQL's `<>`); `IS NOT NULL`
/// for nil.
///
/// ```swift
/// let others = try db.objects(Book.self, where: \.author != tolkien)
/// ```
public func != <Root: Model, Related: Model>(lhs: KeyPath<Root, Related?>, rhs: Related?) -> QueryCondition<Root> {
    guard let rhs else { return QueryCondition(node: .isNull(KeyPathTerm(lhs), false)) }
    return QueryCondition(node: .custom(ReferenceMatch(term: KeyPathTerm(lhs), objects: [rhs], negated: true).render))
}

extension KeyPath where Root: Model {
    /// `reference IN (keys of objects…)` (an empty list matches nothing).
    ///
    /// ```swift
    /// let books = try db.objects(Book.self, where: (\.author).in([tolkien, lewis]))
    /// ```
    public func `in`<Related: Model>(_ objects: [Related]) -> QueryCondition<Root> where Value == Related? {
        QueryCondition(node: .custom(ReferenceMatch(term: KeyPathTerm(self), objects: objects, negated: false).render))
    }
}

/// A reference compared with saved objects' keys.
struct ReferenceMatch {
    let term: KeyPathTerm
    let objects: [ModelObject]
    let negated: Bool

    func render(_ registry: TypeRegistry, _ arguments: inout [SQLValue]) throws -> String {
        let index = try term.resolve(registry.metadata)
        let property = registry.metadata.properties[index]
        let column = SQL.quote(registry.table.columns[index])
        var forms: [SQLValue] = []
        for object in objects {
            guard let key = try ModelMetadata.persistedKey(of: object) else {
                throw ModelError(.unsavedRelated, model: registry.metadata.typeName, property: property.name,
                                 "a condition on \(registry.metadata.typeName).\(property.name) compares with a \(type(of: object)) that is not saved (or was deleted), which has no key; save it first, or compare with nil")
            }
            forms += registry.table.formats[index].storedKey(key).keyForms(untypedColumn: registry.table.untypedColumns.contains(index))
        }
        guard !forms.isEmpty else { return negated ? "\(column) IS NOT NULL" : "1 = 0" }
        arguments += forms
        let list = forms.count == 1 ? "= ?" : "IN (\(SQL.placeholders(forms.count)))"
        return negated ? "NOT (\(column) \(list))" : "\(column) \(list)"
    }
}

extension QueryCondition {
    /// Rows whose reference `reference` points at a row that `condition` selects: `"reference" IN (SELECT
    /// key FROM related WHERE …)`, one level or more (nest it).
    ///
    /// ```swift
    /// let sales = try db.objects(Employee.self, where: .through(\.department, \.name == "Sales"))
    /// let paris = try db.objects(Employee.self, where: .through(\.department, .through(\.site, \.city == "Paris")))
    /// ```
    public static func through<Related: Model>(_ reference: KeyPath<Root, Related?>, _ condition: QueryCondition<Related>) -> QueryCondition {
        let term = KeyPathTerm(reference)
        return QueryCondition(node: .custom { registry, arguments in
            let index = try term.resolve(registry.metadata)
            let database = try registry.openDatabase()
            let related = try database.registry(for: Related.self, checkingCommits: false)
            let (inner, bound) = try condition.sql(related)
            arguments += bound
            return "\(SQL.quote(registry.table.columns[index])) IN (SELECT \(SQL.quote(related.table.columns[0])) FROM \(SQL.quote(related.table.table)) WHERE \(inner))"
        })
    }

    /// Rows that have at least one child (of a `@Children` property, named by its `$` handle) that
    /// `condition` selects: an `EXISTS` subquery on the children's table.
    ///
    /// ```swift
    /// let recent = try db.objects(Artist.self, where: .any(\.$albums, \.year > 2000))
    /// ```
    public static func any<Child: Model>(_ children: KeyPath<Root, ChildrenHandle<Child>>, _ condition: QueryCondition<Child>) -> QueryCondition {
        QueryCondition(node: .custom { registry, arguments in
            let metadata = registry.metadata
            guard let name = KeyPathName.name(of: children, in: Root.self, properties: metadata.properties),
                  let array = metadata.childrenByName[name],
                  let by = array.byProperty(of: metadata.makeInstance()) else {
                throw ModelError(.unknownProperty, model: metadata.typeName, property: "\(children)",
                                 "the key path names no @Children property of \(metadata.typeName)")
            }
            let database = try registry.openDatabase()
            let child = try database.registry(for: Child.self, checkingCommits: false)
            guard let column = child.metadata.properties.firstIndex(where: { $0.name == by }) else {
                throw ModelError(.unknownProperty, model: child.metadata.typeName, property: by,
                                 "@Children(by: \"\(by)\") in \(metadata.typeName) names no persistent property of \(child.metadata.typeName)")
            }
            let (inner, bound) = try condition.sql(child)
            arguments += bound
            let childTable = SQL.quote(child.table.table), ownerTable = SQL.quote(registry.table.table)
            return "EXISTS (SELECT 1 FROM \(childTable) WHERE \(childTable).\(SQL.quote(child.table.columns[column])) = \(ownerTable).\(SQL.quote(registry.table.columns[0])) AND \(inner))"
        })
    }
}
