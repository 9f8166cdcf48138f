/// What reflection needs of a relationship wrapper's type.
protocol ReferenceStorage {
    /// The related model's key: its column type, format kind and form.
    static var relatedKey: RelatedKey { get }
    static var relatedType: any Model.Type { get }
    static func makeIO(offset: Int, keyForm: KeyForm) -> AnyFieldIO
}

/// A related object held weakly, boxed so that a reference holds one pointer however it holds its target
/// (a box is made for each weak hold and never changed, so copies of a state may share it).
@usableFromInline
final class WeakTarget {
    @usableFromInline weak var object: ModelObject?
    init(_ object: ModelObject) { self.object = object }
}

/// How a reference holds its related object: strongly, or weakly through a box.
@usableFromInline
enum HeldTarget {
    case strong(ModelObject)
    case weak(WeakTarget)
}

/// What a ``Reference`` holds, whatever its related type: the stored key and the related object, held
/// strongly or weakly. It is not generic, so the field accessors, fetches and prefetches work on it
/// through specialized code instead of copying a generic wrapper through its value witnesses.
///
/// 40 bytes: the key (17), the declaration's `onDelete` in the key's padding, the missing mark, and one
/// pointer for the held object (``HeldTarget``: a strong reference, or a weak box where holding strongly
/// would form a cycle), so an instance with a resolved reference is no larger than it must be.
///
/// The held object is only ever an instance of the wrapper's `Related` type: every store goes through
/// `Reference<Related>` (typed), the prefetch (which loads through `Related`'s own registry) or a checked
/// cast (``ReferenceIO/attachResolved(_:key:to:)``).
@usableFromInline
struct ReferenceState {
    @usableFromInline var key: SQLValue = .null
    /// The foreign key the column carries in a table Strata creates (nil: none); set once, by the
    /// wrapper's initialiser.
    @usableFromInline var onDelete: ForeignKeyAction?
    /// The handle's change count when the key was found to have no row (-1: not known missing). The mark
    /// holds only while nothing was written since: a row inserted with the key is found again.
    /// (``unsavedHeldWeakly``: an object never saved is assigned and held weakly.)
    @usableFromInline var missingAt = -1
    /// The related object, if one is held.
    @usableFromInline var holder: HeldTarget?

    /// The object held strongly, if any.
    @inlinable var strongTarget: ModelObject? {
        if case .strong(let object)? = holder { return object }
        return nil
    }

    /// Holds `object` (nil: nothing), strongly or weakly.
    @inline(__always)
    mutating func hold(_ object: ModelObject?, strongly: Bool) {
        guard let object else { holder = nil; return }
        holder = strongly ? .strong(object) : .weak(WeakTarget(object))
    }

    /// Holds weakly the object of `box`, which other references may share (a box is never changed).
    @inline(__always)
    mutating func hold(weakly box: WeakTarget) {
        holder = .weak(box)
    }

    /// `missingAt` of a reference assigned an object never saved that holds the owner back (or is the
    /// owner): held weakly, so that no cycle forms; saving the owner after it was freed throws rather
    /// than storing NULL.
    static let unsavedHeldWeakly = -2

    @usableFromInline init() {}

    /// The related object held, strongly or weakly, if any.
    @inlinable var held: ModelObject? {
        switch holder {
        case .strong(let object)?: object
        case .weak(let box)?: box.object
        case nil: nil
        }
    }

    /// Sets the stored key (a row read or refreshed); a different key lets go of the held object.
    mutating func setStoredKey(_ value: SQLValue) {
        if value != key {
            holder = nil
            missingAt = -1
        }
        key = value
    }

    /// Sets an integer key read from a row, without building a value to compare first. Returns whether
    /// the key changed (then no object is held any more).
    @inline(__always) @discardableResult
    mutating func setStoredInteger(_ value: Int64) -> Bool {
        if case .integer(let old) = key, old == value { return false }
        // As `setStoredKey` with a different key, without comparing values or storing nil over nil.
        if holder != nil { holder = nil }
        missingAt = -1
        key = .integer(value)
        return true
    }

    /// The related object held by the state at `state`, read in place: a call on `pointee` would copy the
    /// whole state first.
    @inline(__always)
    static func held(at state: UnsafeMutablePointer<ReferenceState>) -> ModelObject? {
        switch state.pointee.holder {
        case .strong(let object)?: object
        case .weak(let box)?: box.object
        case nil: nil
        }
    }

    /// The stored key of the state at `state` when no live related object is held (what a prefetch must
    /// load), else nil; read in place, as ``held(at:)``.
    @inline(__always)
    static func unresolvedKey(at state: UnsafeMutablePointer<ReferenceState>, generation: Int) -> SQLValue? {
        if let held = held(at: state), !held._isDeleted { return nil }
        if state.pointee.missingAt == generation { return nil }
        switch state.pointee.key {
        case .null: return nil
        case .integer(let value): return .integer(value)
        case let key: return key
        }
    }

    /// Keeps a prefetched related object (nil: the key has no row, as of the handle's change count
    /// `generation`).
    mutating func attachPrefetched(_ object: ModelObject?, strongly: Bool, generation: Int) {
        if let object {
            hold(object, strongly: strongly)
            missingAt = -1
        } else {
            missingAt = key.isNull ? -1 : generation
        }
    }
}

/// A to-one relationship: the property holds another model, stored as that model's primary key and
/// loaded lazily (a fault) on first read, through the database that owns the instance.
///
/// ```swift
/// final class Employee: Model {
///     var id: Int64 = 0
///     @Reference var department: Department?
///     required init() {}
/// }
/// employee.department?.name          // one SELECT on Department, the first time only
/// employee.$department.key           // the stored key, readable even when no row has it
/// try employee.$department.load()    // throws when the key has no row
/// ```
///
/// A resolved relationship holds its target strongly (the identity map keeps one instance per row)
/// unless the target already holds the owner, directly or through others: then weakly, so objects that
/// refer to each other are freed when you drop them. New objects follow the same rule (an object
/// assigned to a new object that holds it back, or to itself, is held weakly; saving the owner after
/// it was freed throws rather than storing NULL), and a new object that refers to itself is inserted,
/// then updated with its own key. New objects of one model that refer to each other are saved together
/// by `save([a, b])`: each after the new objects it refers to, and a cycle closed by an UPDATE (a NOT NULL
/// column cannot hold a cycle: that save throws, writing nothing). A ``Children`` load makes its children hold the parent weakly,
/// except those that held it strongly already, which its array then holds weakly: prefetch plus to-many
/// never forms a cycle between a parent and its children.
@propertyWrapper
public struct Reference<Related: Model>: ReferenceStorage {
    /// The key and the held object (always a `Related`).
    @usableFromInline var state = ReferenceState()
    /// The foreign key the column carries in a table Strata creates (nil: none).
    var onDelete: ForeignKeyAction? { state.onDelete }

    /// An empty relationship.
    ///
    /// ```swift
    /// @Reference var department: Department?
    /// ```
    public init() {}

    /// A relationship whose column carries a FOREIGN KEY constraint to the related table, with what
    /// SQLite does to this row when the related row is deleted. Tables Strata creates get it in their
    /// CREATE TABLE; an existing table gets it only through the opt-in rebuild
    /// (``ModelDeclaration/schemaRebuild``). Live instances follow: a cascaded delete marks them deleted,
    /// SET NULL empties the relationship.
    ///
    /// ```swift
    /// @Reference(onDelete: .cascade) var artist: Artist?
    /// @Reference(onDelete: .setNull) var producer: Artist?
    /// ```
    public init(onDelete: ForeignKeyAction) {
        state.onDelete = onDelete
    }

    /// A relationship set at initialisation.
    ///
    /// ```swift
    /// @Reference var department: Department? = nil
    /// ```
    public init(wrappedValue: Related?) {
        state.hold(wrappedValue, strongly: true)
    }

    /// Not used: a relationship needs its owner, so it is read through the owner's enclosing-instance
    /// subscript.
    ///
    /// ```swift
    /// employee.department
    /// ```
    @available(*, unavailable, message: "@Reference works only on properties of Model classes")
    public var wrappedValue: Related? {
        get { nil }
        set {}
    }

    /// Not used directly; `$property` goes through the owner.
    ///
    /// ```swift
    /// employee.$department
    /// ```
    @available(*, unavailable, message: "@Reference works only on properties of Model classes")
    public var projectedValue: ReferenceHandle<Related> { ReferenceHandle(key: .null, resolve: { nil }) }

    /// Reading resolves the fault; writing stores the object and its key. A property read cannot throw:
    /// a key with no row reads as nil, and so does a load that fails (a closed handle, a query SQLite
    /// refuses), with the error logged at error level through the owner's handle; `try $property.load()`
    /// gives the error.
    ///
    /// ```swift
    /// employee.department = sales
    /// ```
    ///
    /// The getter is inlinable so that, in the owner's module, reading a held object compiles to direct
    /// field loads (the key path is a literal there); only a fault calls into the library.
    @inlinable
    public static subscript<Owner: ModelObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Related?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Reference<Related>>
    ) -> Related? {
        get {
            // The held field alone, so that only the field read is loaded.
            if let held = owner[keyPath: storageKeyPath].state.held, !held._isDeleted {
                return unsafeDowncast(held, to: Related.self)
            }
            return resolvingOrLogging(owner, storageKeyPath)
        }
        set { assign(newValue, to: owner, storageKeyPath) }
    }

    /// What a read of an unresolved reference gives: ``resolve(_:_:)``'s object, or nil when it throws; an
    /// error other than a key with no row (which reads as nil by design) is logged, as a to-many read's is.
    @usableFromInline
    static func resolvingOrLogging<Owner: ModelObject>(_ owner: Owner, _ path: ReferenceWritableKeyPath<Owner, Reference<Related>>) -> Related? {
        do {
            return try resolve(owner, path)
        } catch let error as ModelError where error.kind == .notFound {
            return nil
        } catch {
            owner._registry?.database?.configuration.logger.error(
                "Strata: \(Owner.self).\(Related.self) reference could not be loaded; it reads as nil: \(error)")
            return nil
        }
    }

    /// `$property`: the stored key and a throwing load.
    ///
    /// ```swift
    /// employee.$department.key   // .integer(3)
    /// ```
    public static subscript<Owner: ModelObject>(
        _enclosingInstance owner: Owner,
        projected projectedKeyPath: KeyPath<Owner, ReferenceHandle<Related>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Reference<Related>>
    ) -> ReferenceHandle<Related> {
        ReferenceHandle(key: owner[keyPath: storageKeyPath].currentKey, resolve: { try resolve(owner, storageKeyPath) }, storage: storageKeyPath)
    }

    /// Stores `object` (and its key, once it has one) in the owner's relationship.
    @usableFromInline
    static func assign<Owner: ModelObject>(_ object: Related?, to owner: Owner, _ path: ReferenceWritableKeyPath<Owner, Reference<Related>>) {
        var storage = owner[keyPath: path]
        // An object never saved is held strongly only when it does not hold the owner already (nor is it):
        // no cycle forms. (A saved one is held weakly by a saved owner, and strongly by a new owner until
        // it is saved, with no walk: a new object is held strongly only by references assigned it.)
        let holdsOwner = object.map { !$0.isPersisted && StrongHolds.reaches(from: $0, to: owner) } ?? false
        storage.assign(object, attached: owner.isPersisted, holdsOwner: holdsOwner)
        owner[keyPath: path] = storage
    }

    /// The related object: the one held, else the live instance, else one SELECT by key through the
    /// owner's database. Throws ``ModelError/Kind/notFound`` when the key has no row.
    @usableFromInline
    static func resolve<Owner: ModelObject>(_ owner: Owner, _ path: ReferenceWritableKeyPath<Owner, Reference<Related>>) throws -> Related? {
        // Writes not yet applied to live instances (a bare statement's) could change the owner's key while
        // loading: apply them first.
        if let database = owner._registry?.database {
            if database.isClosed { throw database.closedError() }
            database.applyPendingChanges()
        }
        var storage = owner[keyPath: path].state   // a copy: no access to the owner is held while loading
        if let held = storage.held {
            guard held._isDeleted else { return unsafeDowncast(held, to: Related.self) }
            // Deleted through this handle: let go of it, and look the key up again (a row re-created with
            // the same key is found; none is `notFound`).
            storage.key = Self.currentKey(of: storage)
            storage.holder = nil
            owner[keyPath: path].state = storage
        }
        // An owner never saved has no database to read through; one whose handle is gone cannot read.
        guard !storage.key.isNull, let registry = owner._registry else { return nil }
        let database = try registry.openDatabase()
        let metadata = try ModelMetadata.of(Related.self)
        if storage.missingAt >= 0 && storage.missingAt == database.models.changeCount {
            throw missingTarget(of: owner, key: storage.key, related: metadata)
        }
        if database.batchFaults(of: owner, registry: registry, relatedType: Related.self, key: storage.key) {
            let now = owner[keyPath: path].state
            if now.key == storage.key, let held = now.held, !held._isDeleted { return unsafeDowncast(held, to: Related.self) }
            if now.missingAt >= 0 && now.missingAt == database.models.changeCount {
                throw missingTarget(of: owner, key: storage.key, related: metadata)
            }
        }
        guard let loaded = try database.object(Related.self, forKey: storage.key, checkingCommits: false) else {
            throw missingTarget(of: owner, key: storage.key, related: metadata)
        }
        if owner[keyPath: path].state.key == storage.key {
            // Held for as long as the owner lives (no query on the next read), unless the target already
            // holds the owner, directly or through others: then weakly, so that no cycle forms.
            owner[keyPath: path].state.hold(loaded, strongly: !StrongHolds.reaches(from: loaded, to: owner))
            owner[keyPath: path].state.missingAt = -1
        }
        return loaded
    }

    /// The key of the held object once it has one, else the stored key.
    /// The error of a reference whose key no row has: the related model and the key, with the owner's
    /// model, its key, and the reference's property and column (when the owner declares one reference to
    /// `Related` holding that key, else each candidate).
    static func missingTarget(of owner: ModelObject, key: SQLValue, related: ModelMetadata) -> ModelError {
        guard let registry = owner._registry else {
            return ModelError(.notFound, model: related.typeName, key: key, "no row of \(related.typeName) has the key \(key)")
        }
        let metadata = registry.metadata
        let references = metadata.properties.indices.filter { index in
            metadata.properties[index].related.map { ObjectIdentifier($0) == ObjectIdentifier(Related.self) } ?? false
        }
        let holding = references.filter { (try? metadata.properties[$0].accessor.load(owner)) == key }
        let named = (holding.isEmpty ? references : holding).map { index in
            let column = index < registry.table.columns.count ? registry.table.columns[index] : metadata.properties[index].column
            return "\(metadata.properties[index].name) (column \(SQL.quote(column)))"
        }
        let ownerKey = (try? metadata.key.accessor.load(owner)).map { " \($0)" } ?? ""
        let property = named.isEmpty ? "a reference" : named.joined(separator: " or ")
        return ModelError(.notFound, model: related.typeName, key: key,
                          "\(metadata.typeName)\(ownerKey)'s \(property) holds the key \(key), and no row of \(related.typeName) has it")
    }

    var currentKey: SQLValue { Self.currentKey(of: state) }

    static func currentKey(of state: ReferenceState) -> SQLValue {
        if let held = state.held, let key = try? ModelMetadata.persistedKey(of: held) { return key }
        return state.key
    }

    private mutating func assign(_ object: Related?, attached: Bool, holdsOwner: Bool) {
        state.missingAt = -1
        guard let object else {
            (state.key, state.holder) = (.null, nil)
            return
        }
        if let objectKey = try? ModelMetadata.persistedKey(of: object) {
            state.key = objectKey
            state.hold(object, strongly: !(attached || holdsOwner))
        } else {
            state.key = .null
            state.hold(object, strongly: !holdsOwner)
            if holdsOwner { state.missingAt = ReferenceState.unsavedHeldWeakly }
        }
    }

    // MARK: ReferenceStorage

    static var relatedKey: RelatedKey { RelatedKey(of: Related.self) }
    static var relatedType: any Model.Type { Related.self }
    static func makeIO(offset: Int, keyForm: KeyForm) -> AnyFieldIO {
        // Integer keys (the common case) read INTEGER values as they are; others always convert.
        keyForm.isInteger ? ReferenceIO<Related>(offset: offset, keyForm: keyForm)
            : ConvertingReferenceIO<Related>(offset: offset, keyForm: keyForm)
    }
}

extension ModelMetadata {
    /// The key of a saved, live object (nil for one never saved or deleted), from its own registry; throws
    /// when its key property no longer holds the key of its row (``TypeRegistry/checkedKey(of:)``).
    static func persistedKey(of object: ModelObject) throws -> SQLValue? {
        guard let registry = object._registry, !object._isDeleted else { return nil }
        return try registry.checkedKey(of: object)
    }
}

/// `$relationship`: the stored key, and a load that says why it found nothing.
///
/// ```swift
/// employee.$department.key             // .integer(3), even when no Department 3 exists
/// let department = try employee.$department.load()   // throws ModelError(.notFound) then
/// ```
public struct ReferenceHandle<Related: Model> {
    /// The stored key (`.null` when unset), as the related model holds its key whatever the column's
    /// format: a UUID as its lowercase dashed text, an integer stored as `'1'` as the integer 1.
    ///
    /// ```swift
    /// employee.$department.key
    /// ```
    public let key: SQLValue
    private let resolve: () throws -> Related?
    /// The owner's wrapper storage (`_department`): what a key path `\.$department` names (``KeyPathName``).
    let storagePath: AnyKeyPath?

    init(key: SQLValue, resolve: @escaping () throws -> Related?, storage: AnyKeyPath? = nil) {
        self.key = key
        self.resolve = resolve
        storagePath = storage
    }

    /// The related object; nil only when no key is stored; throws when the key has no row.
    ///
    /// ```swift
    /// let department = try employee.$department.load()
    /// ```
    public func load() throws -> Related? { try resolve() }

    /// The related object, for a relationship that must have one (a NOT NULL foreign key): throws
    /// ``ModelError/Kind/missingValue`` when no key is stored, ``ModelError/Kind/notFound`` when the key
    /// has no row. (A reference reads as an optional, because a plain property read cannot throw: a
    /// dangling key would otherwise have to crash.)
    ///
    /// ```swift
    /// let artist = try track.$artist.require()
    /// ```
    public func require() throws -> Related {
        guard let related = try resolve() else {
            throw ModelError(.missingValue, model: String(describing: Related.self),
                             "the relationship holds no key: no \(Related.self) is set")
        }
        return related
    }
}

/// What SQLite does to a row whose foreign key points at a row being deleted (``Reference/init(onDelete:)``).
///
/// ```swift
/// @Reference(onDelete: .cascade) var artist: Artist?
/// ```
public enum ForeignKeyAction: String, Sendable, CaseIterable {
    /// Delete this row too.
    ///
    /// ```swift
    /// .cascade
    /// ```
    case cascade = "CASCADE"
    /// Set this row's column to NULL.
    ///
    /// ```swift
    /// .setNull
    /// ```
    case setNull = "SET NULL"
    /// Refuse the delete while this row points at it (checked at once).
    ///
    /// ```swift
    /// .restrict
    /// ```
    case restrict = "RESTRICT"
    /// Refuse the delete at commit if this row still points at it.
    ///
    /// ```swift
    /// .noAction
    /// ```
    case noAction = "NO ACTION"
}
