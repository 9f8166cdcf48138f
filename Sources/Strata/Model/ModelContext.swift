/// Per-database model state: live instances and schema memo. (Filled in by the Models issue.)
final class ModelContext {}

extension Database {
    func installChangeHooks() {}
    func reconcileLiveInstances() {}
    func restoreLiveInstancesAfterRollback() {}
}
