/// The order in which ``Database/save(_:)-([T])`` writes a batch of a self-referencing model, so that new
/// objects that refer to each other can be saved in one call: an object whose reference holds a new
/// object of the batch strongly comes after it; a reference that holds one weakly (it closes a cycle: the
/// target holds the owner, see ``StrongHolds``) is left unset for the inserts (`deferred`) and set by an
/// UPDATE once both have keys, so each reference keeps the strength it had. Objects with no such reference
/// keep the batch's order.
///
/// ```swift
/// let ada = Employee(), grace = Employee()
/// ada.manager = grace; grace.manager = ada
/// try db.save([ada, grace])   // INSERT grace (manager NULL), INSERT ada, UPDATE grace SET manager
/// ```
struct InsertionOrder {
    private(set) var ordered: [ModelObject] = []
    /// References to leave unset for the inserts: the object, its field and the new object it holds.
    private(set) var deferred: [(object: ModelObject, field: AnyFieldIO, target: ModelObject)] = []

    /// The order of `objects`, following their references `fields` (those to the model's own type); nil
    /// when no object of the batch holds a new one, so the batch is written as given.
    init?(_ objects: [ModelObject], fields: [AnyFieldIO]) {
        let new = Set(objects.lazy.filter { $0._registry == nil }.map(ObjectIdentifier.init))
        func heldNew(_ object: ModelObject, _ field: AnyFieldIO) -> ModelObject? {
            guard let target = field.heldTarget(of: object), target !== object, target._registry == nil,
                  new.contains(ObjectIdentifier(target)) else { return nil }
            return target
        }
        guard !new.isEmpty, objects.contains(where: { object in fields.contains { heldNew(object, $0) != nil } }) else { return nil }
        // Depth first over the strong holds, without recursion (a chain may be as long as the batch): nil,
        // not seen; false, on the current path; true, placed.
        var placed: [ObjectIdentifier: Bool] = [:]
        for root in objects where placed[ObjectIdentifier(root)] == nil {
            placed[ObjectIdentifier(root)] = false
            var path: [(object: ModelObject, next: Int)] = [(root, 0)]
            while let (object, next) = path.last {
                guard next < fields.count else {
                    path.removeLast()
                    placed[ObjectIdentifier(object)] = true
                    ordered.append(object)
                    continue
                }
                path[path.count - 1].next += 1
                guard let target = heldNew(object, fields[next]) else { continue }
                guard fields[next].holdsStrongly(object) else {
                    deferred.append((object, fields[next], target))   // closes a cycle
                    continue
                }
                switch placed[ObjectIdentifier(target)] {
                case nil:
                    placed[ObjectIdentifier(target)] = false
                    path.append((target, 0))
                case false?:
                    deferred.append((object, fields[next], target))   // (strong holds form no cycle; kept safe)
                case true?:
                    break
                }
            }
        }
    }
}
