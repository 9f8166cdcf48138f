// Strata models for the tables of familysearch_app.sqlite3, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum FamilySearchFixture {
    /// Every model of this file. ```swift FamilySearchFixture.models.count ```
    static let models: [any Model.Type] = [Album.self, ArtifactAssociations.self, ArtifactComment.self, ArtifactDatePlace.self, ArtifactTopicTag.self, CacheTracker.self, Card.self, ConversationFolder.self, DataHint.self, DCamItem.self, DCamWorkstation.self, FanChart.self, FanChartPosition.self, FSArtifact.self, FSContributor.self, FSConversation.self, FSCouple.self, FSDescendants.self, FSFact.self, FSFOR.self, FSHistoryItem.self, FSMessage.self, FSMyArtifacts.self, FSMyTaggedPersons.self, FSPersona.self, FSPersonArtifacts.self, FSPersonNote.self, FSRecordHint.self, FSSourceReference.self, FSTaggedPerson.self, FSUser.self, FSWatch.self, GeoEvent.self, ListArtifact.self, MyAlbumsList.self, Ordinance.self, OtherApp.self, ParentChild.self, PedigreePreferences.self, Person.self, PersonTasks.self, PersonTasksList.self, Place.self, Portrait.self, ReservationList.self, ScopeAncestor.self, Source.self, SyncTask.self, Tag.self, Tree.self, TreePosition.self]

    final class Album: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var listType: Int64 = 0
        var albumName: String?
        var albumDescription: String?
        var contributorPatronId: Int64 = 0
        var uploaderId: Int64 = 0
        var restrictionState: String = ""
        var artifactCount: Int64 = 0
        var thumbUrl: String?
        var thumbSquareUrl: String?
        var thumbIconUrl: String?
        var seoIndexable: Int64 = 0
        var favorite: Int64 = 0
        var editableByCaller: Int64 = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class ArtifactAssociations: Model {
        static let tableName = "Artifact_Associations"
        static let primaryKey = "rowid"
        static let uniqueIndices = [["artifact1LocalId", "artifact2LocalId"]]
        static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
        var rowid: Int64 = 0
        var artifact1LocalId: String?
        var artifact2LocalId: String?
        var deleted: Int64? = 0
        var sortOrder: Int64 = 0
        required init() {}
    }

    final class ArtifactComment: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["commentId"]]
        var localId: String = ""
        var commentId: String?
        var artifactLocalId: String?
        var text: String?
        var cisId: String?
        var createdDate: Double?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class ArtifactDatePlace: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var artifactLocalId: String?
        var dateNonStandardizedText: String?
        var dateNormalizedText: String?
        var placeRepId: String?
        var placeNormalizedText: String?
        var placeNonStandardizedText: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class ArtifactTopicTag: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["topicId", "artifactLocalId"]]
        var localId: String = ""
        var topicId: String?
        var artifactLocalId: String?
        var text: String?
        var useCount: Int64?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class CacheTracker: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["typeRaw", "entityId"]]
        var localId: String = ""
        var typeRaw: String?
        var entityId: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class Card: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["type", "assignmentType", "sortOrder", "personId", "spouseId"]]
        var localId: String = ""
        var type: String?
        var status: String?
        var assignmentType: String?
        var sortOrder: String?
        var personId: String?
        var spouseId: String?
        var parent1Id: String?
        var parent2Id: String?
        var sortKey: Double?
        var reservable: Int64?
        var printable: Int64?
        var unReservable: Int64?
        var shareable: Int64?
        var unShareable: Int64?
        var transferable: Int64?
        var reserveTime: Double?
        var expireTime: Double?
        var visibleContentHash: String?
        var transferUrl: String?
        var transferExpireTime: Double?
        var sharedWithTempleTime: Double?
        var messagesData: Data?
        var ownerId: String?
        var ownerContactName: String?
        var secondaryOwnerId: String?
        var secondaryOwnerContactName: String?
        var secondaryReserveTime: Double?
        var secondaryExpireTime: Double?
        required init() {}
    }

    final class ConversationFolder: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var folderFilter: String?
        var displayName: String?
        var newMessageCount: Int64?
        var sortOrder: Int64?
        required init() {}
    }

    final class DataHint: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var pid: String?
        var category: String?
        var type: String?
        var contextRaw: String?
        var canBeDismissed: Int64 = 0
        var entityId: String?
        var contextId: String?
        var sortKey: Int64?
        required init() {}
    }

    final class DCamItem: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var workstationId: String?
        var direction: String?
        var fileName: String?
        var uploadUrl: String?
        var capturedOn: Double?
        var transferedOn: Double?
        var cacheHash: String?
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class DCamWorkstation: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["workstationId"]]
        var localId: String = ""
        var workstationId: String?
        var projectIds: Data?
        var nickName: String?
        var ipAddress: String?
        required init() {}
    }

    final class FanChart: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["pid", "generations", "dataOptions"]]
        var localId: String = ""
        var pid: String = ""
        var generations: Int64?
        var dataOptions: Int64?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class FanChartPosition: Model {
        static let primaryKey = "rowid"
        static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
        var rowid: Int64 = 0
        var rootPid: String = ""
        var position: String = ""
        var generations: Int64 = 0
        var pid: String?
        required init() {}
    }

    final class FSArtifact: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var type: Int64 = 6
        var url: String?
        var thumbUrl: String?
        var desc: String?
        var title: String?
        var mimeType: String?
        var restricted: Int64 = 0
        var editableByCaller: Int64 = 0
        var category: String?
        var contentCategory: String?
        var uploadedOn: Double = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        var duration: Int64 = 0
        var height: Int64 = 0
        var width: Int64 = 0
        var size: Int64 = 0
        var fullText: String?
        var artifactPatronId: String?
        var deepZoomLiteUrl: String?
        var portraitPhotoTagLocalId: String?
        var serverHash: String? = ""
        var archived: Int64 = 0
        var iconLocalId: String?
        var parentArtifactLocalId: String?
        required init() {}
    }

    final class FSContributor: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["contributorId"]]
        var localId: String = ""
        var key: String?
        var contributorId: String?
        var artifactPatronId: String?
        var contactName: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var email: SQLValue = .text("")
        var phoneNumber: SQLValue = .text("")
        var cisUserId: SQLValue = .text("")
        var relationshipPathData: Data?
        var relationshipDescription: String?
        var optedInToUserRelationship: Int64 = 0
        var surname: String?
        var givenName: String?
        var invitePending: Int64 = 0
        var hasContacted: Int64?
        var isConsultant: Int64?
        var displayName: String?
        required init() {}
    }

    final class FSConversation: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var about: String?
        var aboutUrl: String?
        var lastModifiedTime: Double = 0
        var msgCount: Int64 = 0
        var unreadMsgCount: Int64 = 0
        var subject: String?
        var userConversationState: String?
        var participantIds: Data?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        var folderFilter: String?
        required init() {}
    }

    final class FSCouple: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["relationshipId"]]
        var localId: String = ""
        var person1Pid: String?
        var person2Pid: String?
        var relationshipId: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var sortKey: Int64 = 2147483647
        required init() {}
    }

    final class FSDescendants: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["pid"]]
        var localId: String = ""
        var descendantPids: String?
        var pid: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class FSFact: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["factId", "ownerEntityId"]]
        var localId: String = ""
        var factId: String?
        var ownerEntityId: String?
        var nameData: Data?
        var dateData: Data?
        var placeData: Data?
        var type: Int64 = 0
        var serverType: String?
        var value: String?
        var contributorId: String?
        var lastModified: Double = 0
        var changeMessage: String?
        var sortKey: Int64 = 2147483647
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var placeId: String?
        var dateMonth: Int64 = 0
        var dateDay: Int64 = 0
        required init() {}
    }

    final class FSFOR: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var id: String?
        var createdOn: Double = 0
        var path: String?
        var title: String?
        var forNumber: String?
        required init() {}
    }

    final class FSHistoryItem: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var sequenceNumber: Int64 = 0
        var pid: String?
        var displayName: String?
        var lifespan: String?
        var gender: Int64 = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class FSMessage: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var conversationId: String?
        var authorId: String?
        var body: String?
        var created: Double = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class FSMyArtifacts: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var listType: Int64 = 0
        var cacheHash: String?
        var cisId: String?
        var lastFetchDate: Double = 0
        var archiveState: String = "notArchived"
        required init() {}
    }

    final class FSMyTaggedPersons: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class FSPersona: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var name: String?
        var treePersonIds: Data?
        var photoTagServerId: String?
        var detachReason: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class FSPersonArtifacts: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["pid"]]
        var localId: String = ""
        var pid: String?
        var listType: Int64 = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class FSPersonNote: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var pid: String?
        var subject: String?
        var text: String?
        var contributorId: String?
        var lastModified: Int64 = 0
        var changeMessage: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class FSRecordHint: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var matchedId: String?
        var sourceLinkUrl: String?
        var pid: String?
        var title: String?
        var collectionType: String?
        var personName: String?
        var score: Double = 0
        var published: Double = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var primaryEventType: String?
        required init() {}
    }

    final class FSSourceReference: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["sourceReferenceServerId"]]
        var localId: String = ""
        var pid: String?
        var sourceLocalId: String?
        var sourceReferenceServerId: String?
        var changeMessage: String?
        var contributorId: String?
        var modifiedTimestamp: Int64 = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        var sortKey: Double = 0
        var nameTagged: Int64 = 0
        var genderTagged: Int64 = 0
        var birthTagged: Int64 = 0
        var christeningTagged: Int64 = 0
        var deathTagged: Int64 = 0
        var burialTagged: Int64 = 0
        required init() {}
    }

    final class FSTaggedPerson: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var name: String?
        var pid: String?
        var serverId: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var portraitArtifactLocalId: String?
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        var myTaggedPersonsLocalId: String?
        var didLinkToPidOnServer: Int64 = 0
        required init() {}
    }

    final class FSUser: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var cisId: String?
        var contactName: String?
        var email: String?
        var fullName: String?
        var isMember: Int64 = 1
        var pid: String?
        var userId: String?
        var username: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var helperPin: String? = ""
        var hasHelperPermission: Int64 = 0
        var cardsNotReturned: Int64 = 0
        var gender: Int64?
        required init() {}
    }

    final class FSWatch: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["pid"]]
        var localId: String = ""
        var pid: String?
        var resourceId: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class GeoEvent: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["eventId"]]
        var localId: String = ""
        var eventId: String = ""
        var name: String = ""
        var startTimestamp: Double = 0
        var endTimestamp: Double = 0
        var geofenceCenterLatitude: Double = 0
        var geofenceCenterLongitude: Double = 0
        var geofenceRadius: Double = 0
        var optedIn: Int64 = 0
        var colorHex: String = ""
        var imageUrl: String = ""
        var introText: String = ""
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class ListArtifact: Model {
        static let tableName = "List_Artifact"
        static let primaryKey = "rowid"
        static let uniqueIndices = [["listLocalId", "artifactLocalId"]]
        static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
        var rowid: Int64 = 0
        var listLocalId: String?
        var listType: Int64?
        var artifactLocalId: String?
        var artifactType: Int64?
        var sortKey: Int64 = 0
        required init() {}
    }

    final class MyAlbumsList: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class Ordinance: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["uniqueIdentifier"]]
        var localId: String = ""
        var ownerEntityId: String = ""
        var personId: String?
        var spouseId: String?
        var parent1Id: String?
        var parent2Id: String?
        var type: String?
        var status: String?
        var printable: Int64?
        var reservable: Int64?
        var unReservable: Int64?
        var shareable: Int64?
        var unShareable: Int64?
        var transferable: Int64?
        var ownerId: String?
        var ownerContactName: String?
        var reserveTime: Double?
        var expireTime: Double?
        var sharedWithTempleTime: Double?
        var templeDisplayDate: String?
        var templeDisplayPlace: String?
        var uniqueIdentifier: String = ""
        var displayStatusData: Data?
        var secondaryOwnerId: String?
        var secondaryOwnerContactName: String?
        var secondaryReserveTime: Double?
        var secondaryExpireTime: Double?
        required init() {}
    }

    final class OtherApp: Model {
        static let primaryKey = "rowid"
        static let uniqueIndices = [["appStoreUrl"]]
        static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
        var rowid: Int64 = 0
        var name: String = ""
        var appStoreUrl: String = ""
        var imageUrl: String = ""
        var urlScheme: String?
        required init() {}
    }

    final class ParentChild: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["relationshipId"]]
        var localId: String = ""
        var relationshipId: String?
        var childId: String?
        var parent1Id: String?
        var parent2Id: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var parentSortKey: Int64 = 0
        var childSortKey: Int64 = 0
        required init() {}
    }

    final class PedigreePreferences: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["pid"]]
        var localId: String = ""
        var pid: String = ""
        var preferredCoupleId: String?
        var preferredParentChildId: String?
        var preferredCoparentParentChildId: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class Person: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["pid"]]
        var localId: String = ""
        var pid: String = ""
        var displayName: String?
        var givenName: String?
        var surName: String?
        var suffix: String?
        var nameOrder: String? = "eurotypic"
        var nameSeparator: String? = " "
        var gender: Int64?
        var lifespan: String?
        var living: Int64 = 0
        var readOnly: Int64 = 0
        var confidential: Int64 = 0
        var photoCount: Int64?
        var sourceCount: Int64?
        var storyCount: Int64?
        var researchSuggestionCount: Int64?
        var dataProblemCount: Int64?
        var birthCountry: String?
        var hasRecordHints: Int64?
        var hasPossibleDuplicates: Int64?
        var templeStatus: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class PersonTasks: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["listKeyRaw", "pid"]]
        var localId: String = ""
        var listKeyRaw: String = ""
        var pid: String = ""
        var sortKey: Int64 = 0
        var hasHints: Int64 = 0
        var templeStatus: Int64 = 0
        var displayName: String = ""
        var gender: Int64 = 0
        var lifespan: String?
        var living: Int64 = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class PersonTasksList: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["listKeyRaw"]]
        var localId: String = ""
        var listKeyRaw: String = ""
        var numGens: Int64?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class Place: Model {
        var id: String = ""
        var latitude: Double?
        var longitude: Double?
        var name: String = ""
        var localizedType: String?
        required init() {}
    }

    final class Portrait: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["pid"]]
        var localId: String = ""
        var serverId: String?
        var pid: String?
        var x: Double?
        var y: Double?
        var width: Double?
        var height: Double?
        var rotation: Double?
        var processingState: String?
        var screeningState: String?
        var artifactLocalId: String?
        var artifactServerId: String?
        var reason: String?
        var originalUrl: String?
        var thumbIconUrl: String?
        var thumbSquareUrl: String?
        var mediaType: String?
        var cacheHash: String?
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class ReservationList: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["contributorId", "assignmentType", "sortOrder"]]
        var localId: String = ""
        var contributorId: String = ""
        var assignmentType: String = ""
        var sortOrder: String = ""
        var personalCardCount: Int64?
        var templeSharedCardCount: Int64?
        var completedCount: Int64?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class ScopeAncestor: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["scopeType", "pid"]]
        var localId: String = ""
        var scopeType: String = ""
        var pid: String = ""
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class Source: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var artifactLocalId: String?
        var serverId: String?
        var title: String?
        var url: String?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        var notes: String? = ""
        var citation: String? = ""
        var contributorCisId: String? = ""
        var modifiedTimestamp: Int64 = 0
        var resourceType: String?
        var changeMessage: String?
        var displayDate: String?
        var sortYear: String?
        var sortKey: String?
        var unfinishedAttachments: Int64 = 0
        required init() {}
    }

    final class SyncTask: Model {
        static let primaryKey = "localId"
        var localId: String = ""
        var type: String = ""
        var primaryLocalId: String = ""
        var createdOn: Int64 = 0
        var state: String = ""
        var attemptCount: Int64 = 0
        var lastAttemptDate: Int64 = 0
        var message: String?
        required init() {}
    }

    final class Tag: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var serverId: String?
        var deletable: Int64 = 0
        var editable: Int64 = 0
        var height: Double = 0
        var softTag: Int64 = 0
        var artifactLocalId: String?
        var taggedPersonLocalId: String?
        var personaLocalId: SQLValue = .null
        var taggedPersonPid: SQLValue = .text("")
        var title: String?
        var width: Double = 0
        var x: Double = 0
        var y: Double = 0
        var cacheHash: String?
        var lastFetchDate: Double = 0
        var syncInFlightStatus: Int64 = 0
        var syncStatus: Int64 = 0
        required init() {}
    }

    final class Tree: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["_root1Pid", "_root2Pid", "dataOptions"]]
        var localId: String = ""
        var _root1Pid: String = ""
        var _root2Pid: String = ""
        var ownerEntityId: String = ""
        var dataOptions: Int64?
        var cacheHash: String?
        var lastFetchDate: Double = 0
        required init() {}
    }

    final class TreePosition: Model {
        static let primaryKey = "rowid"
        static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
        var rowid: Int64 = 0
        var ownerEntityId: String = ""
        var rootPid: String = ""
        var position: String = ""
        var pid: String?
        required init() {}
    }
}
