
// The one unsafe file: reads and writes model properties through raw pointers at field offsets.
// (Longer than the house's ~500 lines on purpose: every pointer access of the library is here, plain fields,
// codecs and `@Reference` state alike, so that one review covers all of them; the statement side of these
// reads and binds is the driver's, in Driver/ and SQLite/.)
//
// Why it is sound:
// - Offsets and field types come from the runtime's own field metadata (FieldReflection.swift) for the
//   exact class, so `object + offset` is the address of a stored property whose memory is bound to exactly
//   that type; every access below uses that type. Only `var` fields holding strong references or values
//   are accessed (ModelMetadata rejects `let`, `weak` and `unowned` ones), so every store is one Swift
//   itself could make.
// - Instances are always fully initialised (made by `init()`) before any access, so assignments through
//   `pointee` release the old value and retain the new one exactly as a property assignment does.
// - Objects are passed in by reference (`ModelObject`), so they stay alive for the duration of each call.
// - No access overlaps a Swift access to the same property: the library touches model properties only
//   inside its own calls, on the handle's isolation domain, never while user code holds an inout access.
// Tests: FieldAccessTests round-trips every value type through these paths (run with --sanitize=address).

/// Reads and writes one stored property of a model instance at a fixed byte offset: the common types
/// directly (``FastField``), any other storable type through its codec (``AnyFieldIO``).
enum FieldAccessor {
    case fast(FastField)
    case generic(AnyFieldIO)

    /// The byte offset of the field in its object.
    var offset: Int {
        switch self {
        case .fast(.int64(let offset)), .fast(.int(let offset)), .fast(.double(let offset)), .fast(.bool(let offset)),
             .fast(.string(let offset)), .fast(.optionalInt64(let offset)), .fast(.optionalDouble(let offset)),
             .fast(.optionalString(let offset)):
            offset
        case .generic(let io): io.fieldOffset
        }
    }

    /// The accessor for a property of `type` at `offset`, or nil when the type cannot be stored.
    static func make(type: Any.Type, offset: Int) -> (FieldAccessor, ColumnType, Bool)? {
        switch type {
        case is Int64.Type: return (.fast(.int64(offset)), .integer, false)
        case is Int.Type: return (.fast(.int(offset)), .integer, false)
        case is Double.Type: return (.fast(.double(offset)), .real, false)
        case is Bool.Type: return (.fast(.bool(offset)), .integer, false)
        case is String.Type: return (.fast(.string(offset)), .text, false)
        case is Int64?.Type: return (.fast(.optionalInt64(offset)), .integer, true)
        case is Double?.Type: return (.fast(.optionalDouble(offset)), .real, true)
        case is String?.Type: return (.fast(.optionalString(offset)), .text, true)
        default:
            func open<V>(_ type: V.Type) -> (FieldAccessor, ColumnType, Bool)? {
                guard let codec = ValueCodecs.codec(for: V.self) else { return nil }
                return (.generic(FieldIO(offset: offset, codec: codec)), codec.columnType, codec.isNullable)
            }
            return open(type)
        }
    }

    /// The fast form, when there is one (what the per-row loops iterate).
    var fast: FastField? {
        if case .fast(let field) = self { field } else { nil }
    }

    /// The property's current value as a column value.
    func load(_ object: ModelObject) throws -> SQLValue {
        switch self {
        case .fast(let field): field.load(object)
        case .generic(let io): try io.load(object)
        }
    }

    /// Sets the property from a column value, converting as the type's ``ColumnValue`` rules say.
    func store(_ value: SQLValue, into object: ModelObject) throws {
        switch self {
        case .fast(let field): try field.store(value, into: object)
        case .generic(let io): try io.store(value, into: object)
        }
    }

    /// Whether the property is stored as JSON text.
    var storesJSON: Bool {
        if case .generic(let io) = self { io.storesJSON } else { false }
    }

    /// Whether `a` and `b` hold equal JSON values whose text differs (``AnyFieldIO/holdsEqualJSONValue(_:_:)``).
    func holdsEqualJSONValue(_ a: ModelObject, _ b: ModelObject) -> Bool {
        if case .generic(let io) = self { io.holdsEqualJSONValue(a, b) } else { false }
    }

    /// Binds the property's value to parameter `index` of `statement`.
    func bind(_ object: ModelObject, to statement: Statement, at index: Int32) throws {
        if case .fast(let field) = self, field.bind(object, to: statement, at: index) { return }
        try statement.bind(try load(object), at: index)
    }

    /// Sets the property from column `column` of the current row, converting as the type's rules say.
    func read(_ statement: Statement, column: Int32, into object: ModelObject) throws {
        switch self {
        case .fast(let field):
            if field.read(statement, column: column, into: object) == nil {
                try field.store(statement.value(at: column), into: object)
            }
        case .generic(let io):
            try io.read(statement, column: column, into: object)
        }
    }

    /// The key of a model as an Int64, when the key property is an integer.
    func int64Key(_ object: ModelObject) -> Int64? {
        switch self {
        case .fast(.int64(let offset)): return field(object, offset, Int64.self).pointee
        case .fast(.int(let offset)): return Int64(field(object, offset, Int.self).pointee)
        case .fast(.optionalInt64(let offset)): return field(object, offset, Int64?.self).pointee
        default:
            if case .integer(let v)? = try? load(object) { return v }
            return nil
        }
    }
}

/// The accessors of the common types: trivially copyable, so the per-row loops iterate them with no
/// retain, release or outlined copy (``FieldAccessor`` holds a class in its generic case).
enum FastField {
    case int64(Int)
    case int(Int)
    case double(Int)
    case bool(Int)
    case string(Int)
    case optionalInt64(Int)
    case optionalDouble(Int)
    case optionalString(Int)

    /// Stores an integer already read from the row (the rowid key) into an `Int64` or `Int` field and
    /// returns its snapshot word; nil for fields of other types.
    @inline(__always)
    func store(rowID value: Int64, into object: ModelObject) -> SnapshotWord? {
        switch self {
        case .int64(let offset):
            field(object, offset, Int64.self).pointee = value
            return SnapshotWord(integer: value)
        case .int(let offset):
            field(object, offset, Int.self).pointee = Int(truncatingIfNeeded: value)
            return SnapshotWord(integer: Int64(Int(truncatingIfNeeded: value)))
        default:
            return nil
        }
    }

    /// Stores a text key a fetch already read (and hashed: `hash` is ``SnapshotHash``'s of its bytes, the
    /// snapshot word of the text) into a `String` field and returns its snapshot word; nil for fields of
    /// other types.
    @inline(__always)
    func store(text value: String, hash: UInt64, into object: ModelObject) -> SnapshotWord? {
        switch self {
        case .string(let offset): field(object, offset, String.self).pointee = value
        case .optionalString(let offset): field(object, offset, String?.self).pointee = value
        default: return nil
        }
        return SnapshotWord(bits: hash, isNull: false)
    }

    /// The property's current value as a column value.
    func load(_ object: ModelObject) -> SQLValue {
        switch self {
        case .int64(let offset): .integer(field(object, offset, Int64.self).pointee)
        case .int(let offset): .integer(Int64(field(object, offset, Int.self).pointee))
        case .double(let offset): .real(field(object, offset, Double.self).pointee)
        case .bool(let offset): .integer(field(object, offset, Bool.self).pointee ? 1 : 0)
        case .string(let offset): .text(field(object, offset, String.self).pointee)
        case .optionalInt64(let offset): field(object, offset, Int64?.self).pointee.map { .integer($0) } ?? .null
        case .optionalDouble(let offset): field(object, offset, Double?.self).pointee.map { .real($0) } ?? .null
        case .optionalString(let offset): field(object, offset, String?.self).pointee.map { .text($0) } ?? .null
        }
    }

    /// Sets the property from a column value, converting as the type's ``ColumnValue`` rules say.
    func store(_ value: SQLValue, into object: ModelObject) throws {
        switch self {
        case .int64(let offset): field(object, offset, Int64.self).pointee = try Int64(sqlValue: value)
        case .int(let offset): field(object, offset, Int.self).pointee = try Int(sqlValue: value)
        case .double(let offset): field(object, offset, Double.self).pointee = try Double(sqlValue: value)
        case .bool(let offset): field(object, offset, Bool.self).pointee = try Bool(sqlValue: value)
        case .string(let offset): field(object, offset, String.self).pointee = try String(sqlValue: value)
        case .optionalInt64(let offset): field(object, offset, Int64?.self).pointee = try Int64?(sqlValue: value)
        case .optionalDouble(let offset): field(object, offset, Double?.self).pointee = try Double?(sqlValue: value)
        case .optionalString(let offset): field(object, offset, String?.self).pointee = try String?(sqlValue: value)
        }
    }

    /// Sets the property from column `column` when the stored value has the property's own storage
    /// class, and returns the value's snapshot word; returns nil otherwise (the caller then converts
    /// through ``FieldAccessor/read``).
    ///
    /// Reads go through the statement's cell (``DriverCell``): one column lookup for both the kind and the
    /// value. On the concrete statement, not generic over it: the optimizer outlines the generic form's
    /// specialisation here (0.7% more instructions in the relationship benchmarks), so another engine's
    /// statement gets its own overload, one branch per engine.
    @inline(__always)
    func read(_ statement: Statement, column: Int32, into object: ModelObject) -> SnapshotWord? {
        let value = statement.cell(at: column)
        let type = value.kind
        switch self {
        case .int64(let offset) where type == .integer:
            let v = value.int64
            field(object, offset, Int64.self).pointee = v
            return SnapshotWord(integer: v)
        case .int(let offset) where type == .integer:
            let v = value.int64
            field(object, offset, Int.self).pointee = Int(truncatingIfNeeded: v)
            return SnapshotWord(integer: Int64(Int(truncatingIfNeeded: v)))
        case .double(let offset) where type == .real:
            let v = value.double
            field(object, offset, Double.self).pointee = v
            return SnapshotWord(real: v)
        case .optionalInt64(let offset) where type == .integer:
            let v = value.int64
            field(object, offset, Int64?.self).pointee = v
            return SnapshotWord(integer: v)
        case .optionalInt64(let offset) where type == .null:
            field(object, offset, Int64?.self).pointee = nil
            return .null
        case .optionalDouble(let offset) where type == .real:
            let v = value.double
            field(object, offset, Double?.self).pointee = v
            return SnapshotWord(real: v)
        case .optionalDouble(let offset) where type == .null:
            field(object, offset, Double?.self).pointee = nil
            return .null
        case .string(let offset) where type == .text:
            // (Bytes that are not valid UTF-8 take the converting path, which throws.)
            guard let v = value.string else { return nil }
            field(object, offset, String.self).pointee = v
            return SnapshotWord(text: v)
        case .optionalString(let offset) where type == .text:
            guard let v = value.string else { return nil }
            field(object, offset, String?.self).pointee = v
            return SnapshotWord(text: v)
        case .optionalString(let offset) where type == .null:
            field(object, offset, String?.self).pointee = nil
            return .null
        default:
            return nil
        }
    }

    /// The property's snapshot word (see ``SnapshotWord``), read straight from the field.
    @inline(__always)
    func snapshotWord(_ object: ModelObject) -> SnapshotWord {
        switch self {
        case .int64(let offset): SnapshotWord(integer: field(object, offset, Int64.self).pointee)
        case .int(let offset): SnapshotWord(integer: Int64(field(object, offset, Int.self).pointee))
        case .double(let offset): SnapshotWord(real: field(object, offset, Double.self).pointee)
        case .bool(let offset): SnapshotWord(integer: field(object, offset, Bool.self).pointee ? 1 : 0)
        case .string(let offset): SnapshotWord(text: field(object, offset, String.self).pointee)
        case .optionalInt64(let offset): field(object, offset, Int64?.self).pointee.map { SnapshotWord(integer: $0) } ?? .null
        case .optionalDouble(let offset): field(object, offset, Double?.self).pointee.map { SnapshotWord(real: $0) } ?? .null
        case .optionalString(let offset): field(object, offset, String?.self).pointee.map { SnapshotWord(text: $0) } ?? .null
        }
    }

    /// Binds the property to parameter `index` when it is one of the common types; false otherwise.
    @inline(__always)
    func bind<S: DriverStatement>(_ object: ModelObject, to statement: S, at index: Int32) -> Bool {
        switch self {
        case .int64(let offset): statement.bind(int64: field(object, offset, Int64.self).pointee, at: index)
        case .int(let offset): statement.bind(int64: Int64(field(object, offset, Int.self).pointee), at: index)
        case .double(let offset):
            let value = field(object, offset, Double.self).pointee
            guard !value.isNaN else { return false }   // refused by the slow path, with the property's name
            statement.bind(double: value, at: index)
        case .bool(let offset): statement.bind(int64: field(object, offset, Bool.self).pointee ? 1 : 0, at: index)
        default: return false
        }
        return true
    }
}

// Another engine's cells (Persistence/Database+RemoteRowTexts.swift), kept here with every other field access.
extension FastField {
    /// ``read(_:column:into:)`` for another engine's cell: sets the property when the cell holds the
    /// property's own kind of value; false otherwise (the caller then converts).
    @inline(__always)
    func readRemote<Cell: DriverCell>(_ value: Cell, into object: ModelObject) -> Bool {
        let type = value.kind
        switch self {
        case .int64(let offset) where type == .integer: field(object, offset, Int64.self).pointee = value.int64
        case .int(let offset) where type == .integer:
            let v = value.int64
            guard let narrow = Int(exactly: v) else { return false }
            field(object, offset, Int.self).pointee = narrow
        case .double(let offset) where type == .real: field(object, offset, Double.self).pointee = value.double
        case .optionalInt64(let offset) where type == .integer: field(object, offset, Int64?.self).pointee = value.int64
        case .optionalInt64(let offset) where type == .null: field(object, offset, Int64?.self).pointee = nil
        case .optionalDouble(let offset) where type == .real: field(object, offset, Double?.self).pointee = value.double
        case .optionalDouble(let offset) where type == .null: field(object, offset, Double?.self).pointee = nil
        case .string(let offset) where type == .text:
            guard let v = value.string else { return false }
            field(object, offset, String.self).pointee = v
        case .optionalString(let offset) where type == .text:
            guard let v = value.string else { return false }
            field(object, offset, String?.self).pointee = v
        case .optionalString(let offset) where type == .null: field(object, offset, String?.self).pointee = nil
        default: return false
        }
        return true
    }
}

/// For models whose persistent properties are all non-optional `Int64`, `Int` or `Double` (8 bytes each,
/// never NULL, their snapshot word being their bits): the mask of the properties whose bits differ from
/// `words`, read straight from the fields at `offsets` (a model of at most 64 such properties).
@inline(__always)
func plainWordChanges(_ object: ModelObject, offsets: UnsafeBufferPointer<Int>, words: UnsafeMutablePointer<UInt64>) -> UInt64 {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    var mask: UInt64 = 0
    for i in 0..<offsets.count where base.load(fromByteOffset: offsets[i], as: UInt64.self) != words[i] {
        mask |= 1 << UInt64(i)
    }
    return mask
}

/// ``plainWordChanges(_:offsets:words:)`` for fields side by side: `count` 8-byte numbers from byte `start`
/// (``ModelMetadata/plainWordsStart``, at most 64 of them), one load each. Sound for the same reason.
@inline(__always)
func plainWordChanges(_ object: ModelObject, start: Int, count: Int, words: UnsafeMutablePointer<UInt64>) -> UInt64 {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + start
    var mask: UInt64 = 0
    for i in 0..<count where base.load(fromByteOffset: 8 * i, as: UInt64.self) != words[i] {
        mask |= 1 << UInt64(i)
    }
    return mask
}


/// Reads columns `first...` of the current row into a model whose fields are 8-byte numbers side by side
/// from byte `start` (``ModelMetadata/plainWordsStart``), each also into its snapshot word: an integer
/// column into an `Int64` or `Int` field, a real one into a `Double` (`reals`). Stops at the first column
/// whose stored value is of another kind and returns it, for the converting path; nil when all were read.
///
/// Sound because the fields at `start + 8 * i` are exactly the model's `Int64`, `Int` (8 bytes: see
/// ``ModelMetadata``) and `Double` properties in column order, all trivial types of 8 bytes, so storing
/// the bits as a `UInt64` (layout compatible) is what assigning the property does.
@inline(__always)
func readPlainWords<S: DriverStatement>(_ statement: S, into object: ModelObject, start: Int, reals: UnsafeBufferPointer<Bool>,
                                        from first: Int, words: UnsafeMutablePointer<UInt64>) -> Int? {
    let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + start
    var i = first
    while i < reals.count {
        let value = statement.cell(at: Int32(i))
        let type = value.kind
        let bits: UInt64
        if type == .integer && !reals[i] {
            bits = UInt64(bitPattern: value.int64)
        } else if type == .real && reals[i] {
            bits = value.double.bitPattern
        } else {
            return i
        }
        base.storeBytes(of: bits, toByteOffset: 8 * i, as: UInt64.self)
        words[i] = bits
        i += 1
    }
    return nil
}

/// Stores an integer key part a fetch read (``Database`` `lookUp(keyedBy:registry:newKey:)`) into the
/// ``ReferenceState`` at `stateOffset` of a new instance, as ``ReferenceIO``'s `readCapturing` does; returns
/// whether the part's snapshot word is the key's own (no object held: always, for a new instance), else the
/// caller reads the column through the field's accessor for its word.
@inline(__always)
func storeNewReferenceKey(_ key: Int64, into object: ModelObject, stateOffset: Int) -> Bool {
    let state = field(object, stateOffset, ReferenceState.self)
    return state.pointee.setStoredInteger(key) || ReferenceState.held(at: state) == nil
}

/// ``readPlainWords(_:into:start:reals:from:words:)`` for a model whose fields are all integers: columns
/// 1..<count (column 0, the rowid key, is read already) into the fields and `words`, until a column that is
/// not an integer, whose index it returns (nil when every column was read). Sound for the same reason: the
/// fields are 8-byte integers side by side from byte `start`, and `count` is their number.
@inline(__always)
func readPlainIntegers<S: DriverStatement>(_ statement: S, into object: ModelObject, start: Int, count: Int,
                                           words: UnsafeMutablePointer<UInt64>) -> Int? {
    let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + start
    var i = 1
    while i < count {
        let cell = statement.cell(at: Int32(truncatingIfNeeded: i))
        guard cell.kind == .integer else { return i }
        let bits = UInt64(bitPattern: cell.int64)
        base.storeBytes(of: bits, toByteOffset: 8 &* i, as: UInt64.self)
        words[i] = bits
        i &+= 1
    }
    return nil
}

/// Binds field `index` of such a model to parameter `parameter`: false for a NaN, which the caller refuses
/// through the converting path (it names the property).
@inline(__always)
func bindPlainWord<S: DriverStatement>(_ object: ModelObject, start: Int, index: Int, isReal: Bool, to statement: S, at parameter: Int32) -> Bool {
    let bits = loadPlainWord(object, start: start, index: index)
    if isReal {
        let value = Double(bitPattern: bits)
        guard !value.isNaN else { return false }
        statement.bind(double: value, at: parameter)
    } else {
        statement.bind(int64: Int64(bitPattern: bits), at: parameter)
    }
    return true
}

/// Sets field `index` of such a model (see ``readPlainWords(_:into:start:reals:from:words:)``) to `bits`.
@inline(__always)
func storePlainWord(_ bits: UInt64, into object: ModelObject, start: Int, index: Int) {
    let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + start
    base.storeBytes(of: bits, toByteOffset: 8 * index, as: UInt64.self)
}

/// Sets fields `range` of such a model (see ``readPlainWords(_:into:start:reals:from:words:)``) to
/// `words[range]`, one copy. Sound for the same reason: the fields are 8-byte numbers side by side.
@inline(__always)
func storePlainWords(_ words: UnsafeMutablePointer<UInt64>, into object: ModelObject, start: Int, range: Range<Int>) {
    guard !range.isEmpty else { return }
    let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + start
    (base + 8 * range.lowerBound).copyMemory(from: words + range.lowerBound, byteCount: 8 * range.count)
}

/// The bits of field `index` of such a model.
@inline(__always)
func loadPlainWord(_ object: ModelObject, start: Int, index: Int) -> UInt64 {
    UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).load(fromByteOffset: start + 8 * index, as: UInt64.self)
}

/// Copies `count` consecutive 8-byte number fields starting at `offset` into `words` (their snapshot:
/// the words are the fields' bits).
@inline(__always)
func copyPlainWords(_ object: ModelObject, offset: Int, count: Int, into words: UnsafeMutablePointer<UInt64>) {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    UnsafeMutableRawPointer(words).copyMemory(from: base + offset, byteCount: count * 8)
}

/// The typed pointer to a stored property of `object`.
@inline(__always)
private func field<T>(_ object: ModelObject, _ offset: Int, _ type: T.Type) -> UnsafeMutablePointer<T> {
    Unmanaged.passUnretained(object).toOpaque().advanced(by: offset).assumingMemoryBound(to: T.self)
}

extension Array where Element: ModelObject {
    /// The same array typed `[ModelObject]`, without a copy. `as [ModelObject]` is that on Apple platforms,
    /// but on Linux it maps the array, with a retain and a dynamic cast per element (75 instructions per
    /// owner of a 10,000-owner prefetch). Sound: an array of class references stores them alike whatever
    /// their class (one storage object, the same header and element layout, elements released by the
    /// storage's own type when it goes), every element is a `ModelObject`, and the storage is shared with
    /// `self`, so a write through the result copies it first. Tests: PrefetchUpcastTests.
    @usableFromInline
    var asModelObjects: [ModelObject] { unsafeBitCast(self, to: [ModelObject].self) }
}

extension Array where Element == ModelObject {
    /// The same array typed `[T]`, without a copy, for an array whose every element is a `T` because the
    /// caller made it so (objects loaded through `T`'s registry). Sound for the reasons `asModelObjects`
    /// gives (the storage does not depend on the class; a write copies shared storage first), with every
    /// element a `T` (checked in debug builds); Apple platforms' checked downcast of an array ends in the
    /// same reinterpretation once each element is checked. Tests: PrefetchUpcastTests.
    func unsafelyDowncast<T: ModelObject>(to type: T.Type) -> [T] {
        assert(allSatisfy { $0 is T }, "an element is not a \(T.self)")
        return unsafeBitCast(self, to: [T].self)
    }
}

/// Type-erased access to a property of any storable type.
class AnyFieldIO {
    /// The byte offset of the field in its object.
    var fieldOffset: Int { -1 }
    func load(_ object: ModelObject) throws -> SQLValue { .null }
    func store(_ value: SQLValue, into object: ModelObject) throws {}
    /// The value to store in a column of `format` (not ``ColumnFormat/native``).
    func load(_ object: ModelObject, format: ColumnFormat) throws -> SQLValue { try format.stored(load(object)) }
    /// Sets the field from column `column` of the current row.
    func read(_ statement: Statement, column: Int32, into object: ModelObject) throws {
        try store(statement.value(at: column), into: object)
    }
    /// Sets the field from column `column` of the current row and returns its snapshot word (what
    /// ``ModelMetadata/snapshotWord(of:at:)`` would give right after).
    func readCapturing(_ statement: Statement, column: Int32, into object: ModelObject) throws -> SnapshotWord {
        try read(statement, column: column, into: object)
        // A value that does not encode back is a word equal to nothing, as in `snapshotWord(of:at:)`.
        return (try? load(object)).map(SnapshotWord.init) ?? .unknown
    }
    /// Whether the field of `a` and of `b` hold equal JSON values of an `Equatable` type whose JSON text
    /// differs (a set nested in a struct keeps each instance's own order); false for any other field.
    func holdsEqualJSONValue(_ a: ModelObject, _ b: ModelObject) -> Bool { false }
    /// Whether the field is stored as JSON text.
    var storesJSON: Bool { false }
    /// The object a relationship field holds strongly, if any (what keeps it alive).
    func strongTarget(of object: ModelObject) -> ModelObject? { nil }
    /// The object a relationship field holds, strongly or weakly, if any.
    func heldTarget(of object: ModelObject) -> ModelObject? { nil }
    /// A relationship field's declared foreign-key action.
    func declaredOnDelete(of object: ModelObject) -> ForeignKeyAction? { nil }
    /// A relationship field's key when it holds no live object (what a prefetch loads); nil otherwise.
    func unresolvedKey(of object: ModelObject, generation: Int) -> SQLValue? { nil }
    /// A relationship field's stored key when it is an integer and no object is held (what `load` then
    /// gives, read in place); nil otherwise, and for other fields.
    func storedIntegerKey(of object: ModelObject) -> Int64? { nil }
    /// The offset of a `@Reference` field's ``ReferenceState`` when it reads integer keys natively (what a
    /// fetch by key stores a key part into, ``storeNewReferenceKey(_:into:stateOffset:)``); nil otherwise.
    var integerKeyStateOffset: Int? { nil }
    /// The unresolved keys of a relationship field of many owners (none for other fields).
    func unresolvedKeys(of owners: [ModelObject], generation: Int) -> PrefetchKeys { PrefetchKeys() }
    /// Hands each owner of `pending` the live instance of its key from `registry` (nil: the key has no
    /// row, as of the handle's change count `generation`), held strongly unless `checkingHoldBack` and
    /// the target already holds its owner.
    func attachPrefetched(_ pending: PrefetchKeys, of owners: [ModelObject], from registry: TypeRegistry,
                          checkingHoldBack: Bool, generation: Int, aliases: [SQLValue: ModelObject] = [:]) {}
    /// Points the relationship field of each of `objects` weakly at `target` when it stores `key` (see
    /// ``Children``), but leaves a strong hold on `target` as it is. Returns whether the field of some of
    /// them holds another object strongly (an unsaved reassignment: the caller must then check for cycles),
    /// and which hold `target` strongly (nil: none).
    func attachResolved(_ target: ModelObject, key: SQLValue, collation: KeyCollation = .binary,
                        to objects: [ModelObject]) -> (holdsOther: Bool, holding: [Bool]?) {
        (false, nil)
    }
    /// Turns a relationship field's strong hold on `target` into a weak one, in each of `objects` (a
    /// parent that loaded its children is held weakly by them, through any of their references).
    func weakenHold(on target: ModelObject, in objects: [ModelObject]) {}
    /// A relationship field's stored key as it is now (`.null` for other fields).
    func storedKey(of object: ModelObject) -> SQLValue { .null }
    /// Lets a relationship field drop its held object and keep its stored key, which the next read
    /// resolves again (after a rollback undid the held object's insert).
    func dropHeld(of object: ModelObject) {}
    /// Makes a relationship field hold `target` as an object assigned before it was saved: no key, held
    /// strongly unless `target` holds the owner (after a rollback undid the insert of an assigned object).
    func holdUnsaved(_ target: ModelObject, in object: ModelObject) {}
    /// Whether a relationship field of `object` holds its object strongly (false: weakly, or none).
    func holdsStrongly(_ object: ModelObject) -> Bool { false }
    /// Whether a relationship field of `object` holds `object` itself.
    func holdsItself(_ object: ModelObject) -> Bool { false }
    /// Makes a relationship field of `object` hold `object` itself (with its key once it has one), or
    /// nothing (around the INSERT of a new object that refers to itself).
    func setHoldsItself(_ object: ModelObject, _ holds: Bool) {}
    /// A relationship field's whole state (key, held object, strong or weak), to put back with
    /// ``restoreReferenceState(_:of:)``; nil for other fields.
    func referenceState(of object: ModelObject) -> ReferenceState? { nil }
    func restoreReferenceState(_ state: ReferenceState, of object: ModelObject) {}
}

/// Access to a property of type `Value` at a fixed offset, converted by its codec.
final class FieldIO<Value>: AnyFieldIO {
    override var fieldOffset: Int { offset }
    let offset: Int
    let codec: ValueCodec<Value>

    init(offset: Int, codec: ValueCodec<Value>) {
        self.offset = offset
        self.codec = codec
    }

    override func load(_ object: ModelObject) throws -> SQLValue {
        try codec.encode(field(object, offset, Value.self).pointee)
    }

    override func store(_ value: SQLValue, into object: ModelObject) throws {
        field(object, offset, Value.self).pointee = try codec.decode(value)
    }

    override var storesJSON: Bool { codec.isJSON }

    /// In a column of Python's JSON layout, a whole `Double` or `Float` is written as Python writes it, `1.0`
    /// (``JSONFloatPaths``), which JSONEncoder's text (`1`) does not tell from an integer.
    override func load(_ object: ModelObject, format: ColumnFormat) throws -> SQLValue {
        let value = field(object, offset, Value.self).pointee
        let native = try codec.encode(value)
        guard codec.isJSON, case .jsonText(let spaced, let asciiOnly) = format, case .text(let text) = native,
              let encodable = value as? any Encodable else { return try format.stored(native) }
        return .text(JSONStyle.restyle(text, spaced: spaced, asciiOnly: asciiOnly, floats: JSONFloatPaths.of(encodable)))
    }

    override func holdsEqualJSONValue(_ a: ModelObject, _ b: ModelObject) -> Bool {
        guard codec.isJSON, let value = field(a, offset, Value.self).pointee as? any Equatable else { return false }
        return value.isEqual(to: field(b, offset, Value.self).pointee)
    }
}

extension Equatable {
    /// Whether `other` is a `Self` equal to this value.
    func isEqual(to other: Any) -> Bool { (other as? Self).map { $0 == self } ?? false }
}

/// Access to a `@Reference` property at a fixed offset (see Reference.swift). Everything but the declared
/// foreign-key action and a type check works on the wrapper's non-generic ``ReferenceState``, so it runs
/// specialized code whatever `Related` is.
///
/// The state holds the key in its canonical form (``KeyForm``): a key stored in another format (32 hex
/// digits, an integer as text) is converted when read, and the column's ``ColumnFormat`` writes it back.
/// Integer keys read as INTEGER take a fast path; ``ConvertingReferenceIO`` serves the other keys.
class ReferenceIO<Related: Model>: AnyFieldIO {
    final override var fieldOffset: Int { offset }
    /// The wrapper's offset in the owner.
    final let offset: Int
    /// The offset of the wrapper's ``ReferenceState`` in the owner.
    final let stateOffset: Int
    /// How a stored key becomes `Related`'s key as its instances hold it.
    final let keyForm: KeyForm

    init(offset: Int, keyForm: KeyForm) {
        self.offset = offset
        self.keyForm = keyForm
        // The state's place in the wrapper (0 today: it is the first stored property; asked, not assumed).
        stateOffset = offset + (MemoryLayout<Reference<Related>>.offset(of: \Reference<Related>.state) ?? 0)
    }

    @inline(__always)
    final func state(_ object: ModelObject) -> UnsafeMutablePointer<ReferenceState> { field(object, stateOffset, ReferenceState.self) }

    /// The key to store: the held object's once it is saved (then held strongly, unless it holds the
    /// owner back); throws when the held object was never saved.
    final override func load(_ object: ModelObject) throws -> SQLValue {
        let state = state(object)
        guard let held = ReferenceState.held(at: state) else {
            if state.pointee.missingAt == ReferenceState.unsavedHeldWeakly {
                let name = String(describing: Related.self)
                throw ModelError(.unsavedRelated, model: name,
                                 "the related \(name) was never saved and has been freed (it referred back to this object, so it was held weakly): keep it until it is saved, or set the relationship again")
            }
            return state.pointee.key
        }
        // A held object whose row was deleted: the column still holds its key (until a refresh says else).
        if held._isDeleted { return state.pointee.key }
        guard let heldKey = try ModelMetadata.persistedKey(of: held) else {
            let name = String(describing: Related.self)
            throw ModelError(.unsavedRelated, model: name,
                             "the related \(name) has not been saved, so there is no key to store; save it first (new objects of one model that refer to each other: save them together, with save([a, b]))")
        }
        state.pointee.missingAt = -1
        // A stored key spelled otherwise that the related key's collation finds equal ('ada' for a `COLLATE
        // NOCASE` key 'Ada', which the reference resolved to) still names the held object: it stays as the
        // column holds it, so that reading the reference is no change to save.
        let stored = state.pointee.key
        if stored != heldKey, !stored.isNull, let collation = held._registry?.table.keyCollation, collation != .binary,
           collation.folded(stored) == collation.folded(heldKey) {
            state.pointee.hold(held, strongly: !StrongHolds.reaches(from: held, to: object))
            return stored
        }
        state.pointee.key = heldKey
        // Saved on both sides now: held strongly as a resolved reference is, unless the object holds the
        // owner (objects assigned to each other before either was saved must not keep each other alive).
        state.pointee.hold(held, strongly: !StrongHolds.reaches(from: held, to: object))
        return heldKey
    }

    /// Keeps the key in its canonical form (`'1'` is the integer 1, 32 hex digits the UUID's text).
    final override func store(_ value: SQLValue, into object: ModelObject) throws {
        state(object).pointee.setStoredKey(keyForm.canonical(value))
    }

    /// Integer keys (the common case) are read without building an ``SQLValue`` from the statement.
    override func read(_ statement: Statement, column: Int32, into object: ModelObject) throws {
        let value = statement.cell(at: column)
        if value.kind == .integer {
            state(object).pointee.setStoredInteger(value.int64)
        } else {
            try store(statement.value(at: column), into: object)
        }
    }

    /// An integer key straight into the field and its word (a fetched owner holds no object yet, so the
    /// word is the key's, as `load` would give).
    override func readCapturing(_ statement: Statement, column: Int32, into object: ModelObject) throws -> SnapshotWord {
        let value = statement.cell(at: column)
        guard value.kind == .integer else {
            try store(statement.value(at: column), into: object)
            return (try? load(object)).map(SnapshotWord.init) ?? .unknown
        }
        let key = value.int64
        let state = state(object)
        // A new key lets go of any held object (the usual case: a new instance); only the same key may
        // still hold one, whose key is the word then.
        if state.pointee.setStoredInteger(key) { return SnapshotWord(integer: key) }
        guard ReferenceState.held(at: state) != nil else { return SnapshotWord(integer: key) }
        return (try? load(object)).map(SnapshotWord.init) ?? .unknown
    }

    final override func strongTarget(of object: ModelObject) -> ModelObject? { state(object).pointee.strongTarget }

    final override func heldTarget(of object: ModelObject) -> ModelObject? { ReferenceState.held(at: state(object)) }

    final override func declaredOnDelete(of object: ModelObject) -> ForeignKeyAction? {
        state(object).pointee.onDelete
    }

    final override func unresolvedKey(of object: ModelObject, generation: Int) -> SQLValue? {
        ReferenceState.unresolvedKey(at: state(object), generation: generation)
    }

    override var integerKeyStateOffset: Int? { stateOffset }

    final override func storedIntegerKey(of object: ModelObject) -> Int64? {
        let state = state(object)
        guard ReferenceState.held(at: state) == nil, case .integer(let value) = state.pointee.key else { return nil }
        return value
    }

    /// One pass over the owners' states in place: no call and no ``SQLValue`` per owner for integer keys,
    /// which are deduplicated through a rowid map used as a set.
    final override func unresolvedKeys(of owners: [ModelObject], generation: Int) -> PrefetchKeys {
        var result = PrefetchKeys()
        result.integerOwners.reserveCapacity(owners.count)
        result.integerKeys.reserveCapacity(owners.count)
        var seenIntegers = RowIDMap(), seenOthers = Set<SQLValue>()
        owners.withUnsafeBufferPointer { owners in
            for index in owners.indices {
                let owner = owners[index]
                let state = state(owner)
                if let held = ReferenceState.held(at: state), !held._isDeleted { continue }
                if state.pointee.missingAt == generation { continue }
                if case .integer(let value) = state.pointee.key {
                    result.integerOwners.append(index)
                    result.integerKeys.append(value)
                    let (found, slot) = seenIntegers.find(value)
                    if found == nil {
                        seenIntegers.insert(Unmanaged.passUnretained(owner), for: value, at: slot)
                        result.distinct.append(.integer(value))
                    }
                } else if let key = ReferenceState.unresolvedKey(at: state, generation: generation) {
                    result.otherOwners.append(index)
                    result.otherKeys.append(key)
                    if seenOthers.insert(key).inserted { result.distinct.append(key) }
                }
            }
        }
        return result
    }

    final override func attachPrefetched(_ pending: PrefetchKeys, of owners: [ModelObject], from registry: TypeRegistry,
                                   checkingHoldBack: Bool, generation: Int, aliases: [SQLValue: ModelObject] = [:]) {
        // Owners that hold one target weakly share one box (many owners, few targets).
        var boxes: [ObjectIdentifier: WeakTarget] = [:]
        func attach(_ found: ModelObject?, to owner: ModelObject) {
            let target = found?._isDeleted == false ? found : nil
            let strongly = target.map { !checkingHoldBack || !StrongHolds.reaches(from: $0, to: owner) } ?? false
            if let target, !strongly {
                let box = boxes[ObjectIdentifier(target)] ?? WeakTarget(target)
                boxes[ObjectIdentifier(target)] = box
                state(owner).pointee.hold(weakly: box)
                state(owner).pointee.missingAt = -1
                return
            }
            state(owner).pointee.attachPrefetched(target, strongly: strongly, generation: generation)
        }
        let byRowID = registry.keyIsRowID
        if byRowID && !checkingHoldBack {
            // The common case (rowid keys, targets that cannot hold the owners back), with no reference
            // counting beyond the store itself: each owner holds its target strongly.
            owners.withUnsafeBufferPointer { owners in
                for (index, key) in zip(pending.integerOwners, pending.integerKeys) {
                    let state = state(owners[index])
                    guard let found = registry.unretainedInstance(rowID: key) else {
                        state.pointee.attachPrefetched(nil, strongly: false, generation: generation)
                        continue
                    }
                    found._withUnsafeGuaranteedRef { target in
                        state.pointee.attachPrefetched(target._isDeleted ? nil : target, strongly: true, generation: generation)
                    }
                }
            }
        } else {
            for (index, key) in zip(pending.integerOwners, pending.integerKeys) {
                attach(byRowID ? registry.instance(rowID: key) : registry.instance(key: .integer(key)) ?? aliases[.integer(key)], to: owners[index])
            }
        }
        for (index, key) in zip(pending.otherOwners, pending.otherKeys) {
            attach(registry.instance(key: key) ?? aliases[key], to: owners[index])
        }
    }

    /// Points the field of each of `objects` weakly at `target` when it stores `key` and `target` is a
    /// `Related` (the parent that just loaded its children); a strong hold on that same object stays, and
    /// is reported, so that the parent's array holds that child weakly: parent and child form no cycle.
    /// A key stored in another spelling that the parent key's `collation` finds equal ('ada' for a
    /// `COLLATE NOCASE` key 'Ada') stores the same parent.
    final override func attachResolved(_ target: ModelObject, key: SQLValue, collation: KeyCollation = .binary,
                                       to objects: [ModelObject]) -> (holdsOther: Bool, holding: [Bool]?) {
        guard target is Related else { return (false, nil) }
        let integer: Int64? = if case .integer(let value) = key { value } else { nil }
        var holdsOther = false
        var holding: [Bool]?
        var box: WeakTarget?     // one for every child that holds the parent weakly
        for (i, object) in objects.enumerated() {
            let state = state(object)
            if let integer {
                guard case .integer(let stored) = state.pointee.key, stored == integer else {
                    if state.pointee.strongTarget != nil { holdsOther = true }
                    continue
                }
            } else if state.pointee.key != key
                        && (collation == .binary || collation.folded(state.pointee.key) != collation.folded(key)) {
                if state.pointee.strongTarget != nil { holdsOther = true }
                continue
            }
            if let strong = state.pointee.strongTarget {
                if strong === target {
                    // Held strongly already (the child was reached from the parent): it stays so.
                    if holding == nil { holding = [Bool](repeating: false, count: objects.count) }
                    holding?[i] = true
                } else {
                    holdsOther = true
                }
                continue
            }
            if box == nil { box = WeakTarget(target) }
            if let box { state.pointee.hold(weakly: box) }
            state.pointee.missingAt = -1
        }
        return (holdsOther, holding)
    }

    override func weakenHold(on target: ModelObject, in objects: [ModelObject]) {
        var box: WeakTarget?
        for object in objects {
            let state = state(object)
            guard let strong = state.pointee.strongTarget, strong === target else { continue }
            if box == nil { box = WeakTarget(strong) }
            if let box { state.pointee.hold(weakly: box) }
        }
    }

    override func storedKey(of object: ModelObject) -> SQLValue { state(object).pointee.key }

    override func dropHeld(of object: ModelObject) {
        let state = state(object)
        state.pointee.holder = nil
        state.pointee.missingAt = -1
    }

    override func holdsStrongly(_ object: ModelObject) -> Bool { state(object).pointee.strongTarget != nil }

    override func holdsItself(_ object: ModelObject) -> Bool { ReferenceState.held(at: state(object)) === object }

    override func setHoldsItself(_ object: ModelObject, _ holds: Bool) {
        let state = state(object)
        guard holds else {
            (state.pointee.key, state.pointee.holder) = (.null, nil)
            state.pointee.missingAt = -1
            return
        }
        // Weakly: an object never holds itself strongly.
        state.pointee.hold(object, strongly: false)
        if let key = try? ModelMetadata.persistedKey(of: object) {
            state.pointee.key = key
            state.pointee.missingAt = -1
        } else {
            state.pointee.key = .null
            state.pointee.missingAt = ReferenceState.unsavedHeldWeakly
        }
    }

    override func referenceState(of object: ModelObject) -> ReferenceState? { state(object).pointee }

    override func restoreReferenceState(_ saved: ReferenceState, of object: ModelObject) { state(object).pointee = saved }

    override func holdUnsaved(_ target: ModelObject, in object: ModelObject) {
        guard target is Related else { return }
        let state = state(object)
        state.pointee.key = .null
        let weakly = StrongHolds.reaches(from: target, to: object)
        state.pointee.hold(target, strongly: !weakly)
        state.pointee.missingAt = weakly ? ReferenceState.unsavedHeldWeakly : -1
    }
}

/// A `@Reference` to a model whose key is not an integer (text, a UUID): every stored value is converted
/// to the key's canonical form (an INTEGER one too: a String key's `5` is `"5"`).
final class ConvertingReferenceIO<Related: Model>: ReferenceIO<Related> {
    override var integerKeyStateOffset: Int? { nil }

    override func read(_ statement: Statement, column: Int32, into object: ModelObject) throws {
        try store(statement.value(at: column), into: object)
    }

    override func readCapturing(_ statement: Statement, column: Int32, into object: ModelObject) throws -> SnapshotWord {
        try store(statement.value(at: column), into: object)
        return (try? load(object)).map(SnapshotWord.init) ?? .unknown
    }
}

/// A wrapper that is never a column (``Children``) at a fixed offset: the objects it holds strongly
/// (what the cycle check, ``StrongHolds``, walks besides relationships), and its prefetch.
class AnyHeldObjects {
    var relatedType: (any Model.Type)? { nil }
    func objects(of object: ModelObject) -> [ModelObject] { [] }
    /// Whether the loaded array of `owner` holds `child`, strongly or weakly.
    func holds(_ child: ModelObject, in owner: ModelObject) -> Bool { false }
    /// Drops the loaded array of `object` (the next read queries again).
    func invalidate(of object: ModelObject) {}
    /// Whether a rollback drops the loaded arrays (``TransientStorage/droppedOnRollback``).
    var droppedOnRollback: Bool { false }
    /// ``TransientStorage/byProperty`` of the wrapper in `object`.
    func byProperty(of object: ModelObject) -> String? { nil }
    /// ``TransientStorage/throughTable`` of the wrapper in `object`.
    func throughTable(of object: ModelObject) -> String? { nil }
    /// Loads the wrapper's objects for every owner at once; returns them all.
    func prefetch(_ owners: [ModelObject], registry: TypeRegistry, database: Database) throws -> [ModelObject] { [] }
    /// ``TransientStorage/checkDeclaration(owner:property:)`` of the wrapper in `object`.
    func checkDeclaration(of object: ModelObject, owner: ModelMetadata, property: String) throws {}
}

final class HeldObjects<Storage: TransientStorage>: AnyHeldObjects {
    let offset: Int

    init(offset: Int) { self.offset = offset }

    override var relatedType: (any Model.Type)? { Storage.relatedType }

    override func objects(of object: ModelObject) -> [ModelObject] { field(object, offset, Storage.self).pointee.heldObjects }

    override func holds(_ child: ModelObject, in owner: ModelObject) -> Bool { field(owner, offset, Storage.self).pointee.holds(child) }

    override func invalidate(of object: ModelObject) { field(object, offset, Storage.self).pointee.invalidate() }

    override var droppedOnRollback: Bool { Storage.droppedOnRollback }

    override func byProperty(of object: ModelObject) -> String? { field(object, offset, Storage.self).pointee.byProperty }

    override func throughTable(of object: ModelObject) -> String? { field(object, offset, Storage.self).pointee.throughTable }

    override func prefetch(_ owners: [ModelObject], registry: TypeRegistry, database: Database) throws -> [ModelObject] {
        try Storage.prefetch(owners, registry: registry, database: database) { field($0, self.offset, Storage.self) }
    }

    override func checkDeclaration(of object: ModelObject, owner: ModelMetadata, property: String) throws {
        try field(object, offset, Storage.self).pointee.checkDeclaration(owner: owner, property: property)
    }
}

extension TransientStorage {
    static func makeHeldObjects(offset: Int) -> AnyHeldObjects { HeldObjects<Self>(offset: offset) }
}

/// The byte offset, in a `Root`, of what a key path names; nil for a key path that is not writable (a
/// `let`, a read-only computed property). The caller matches it against the persistent properties'
/// offsets, which a computed property or a chain never matches.
///
/// Sound: the key path is applied to a fresh instance through an inout access, which for a stored class
/// property yields the address of the field itself; the address is only compared, never dereferenced. A
/// computed property yields the address of a temporary outside the object, which matches no field.
func storedOffset<Root: ModelObject, Value>(of keyPath: KeyPath<Root, Value>, in scratch: Root) -> Int? {
    guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Value> else { return nil }
    let base = UnsafeRawPointer(Unmanaged.passUnretained(scratch).toOpaque())
    let address = withUnsafeMutablePointer(to: &scratch[keyPath: writable]) { UnsafeRawPointer($0) }
    // (A temporary lives on the stack, far from the heap object: its distance matches no field offset,
    // which the caller checks.)
    return base.distance(to: address)
}
