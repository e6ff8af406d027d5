// Core Data's error codes and user info keys (CoreDataErrors.h) for the framework's errors, so
// that code written for Core Data, which reads `(error as NSError).code` and the validation keys,
// finds what it expects: each error, bridged to NSError, is in NSCocoaErrorDomain with Core
// Data's code for the same failure. The Swift errors keep their own cases and descriptions.
import Foundation

// Validation.
public let NSManagedObjectValidationError = 1550
public let NSManagedObjectConstraintValidationError = 1551
public let NSValidationMultipleErrorsError = 1560
public let NSValidationMissingMandatoryPropertyError = 1570
public let NSValidationRelationshipLacksMinimumCountError = 1580
public let NSValidationRelationshipExceedsMaximumCountError = 1590
public let NSValidationRelationshipDeniedDeleteError = 1600
public let NSValidationNumberTooLargeError = 1610
public let NSValidationNumberTooSmallError = 1620
public let NSValidationDateTooLateError = 1630
public let NSValidationDateTooSoonError = 1640
public let NSValidationStringTooLongError = 1660
public let NSValidationStringTooShortError = 1670
public let NSValidationStringPatternMatchingError = 1680
// Objects, merging and stores.
public let NSManagedObjectReferentialIntegrityError = 133000
public let NSManagedObjectMergeError = 133020
public let NSManagedObjectConstraintMergeError = 133021
public let NSPersistentStoreInvalidTypeError = 134000
public let NSPersistentStoreIncompatibleSchemaError = 134020
public let NSPersistentStoreSaveError = 134030
public let NSCoreDataError = 134060
public let NSPersistentStoreOperationError = 134070
public let NSPersistentStoreUnsupportedRequestTypeError = 134091
public let NSPersistentStoreIncompatibleVersionHashError = 134100
public let NSSQLiteError = 134180
public let NSMigrationError = 134110
public let NSMigrationCancelledError = 134120
public let NSMigrationMissingSourceModelError = 134130
public let NSMigrationMissingMappingModelError = 134140
public let NSInferredMappingModelError = 134190

// User info keys.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// In a validation error: the failing object's ID (a failure is a plain value and keeps no object;
/// `context.object(with:)` gives the object).
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// In a validation error: the offending value as a person reads it.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
public let NSPersistentStoreSaveConflictsErrorKey = "conflictList"
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"

extension ValidationError.Failure {
    /// Core Data's code for this failure (`NSValidationMissingMandatoryPropertyError`, …).
    public var code: Int {
        switch rule {
        case .required: return NSValidationMissingMandatoryPropertyError
        case .minimum: return NSValidationNumberTooSmallError
        case .maximum: return NSValidationNumberTooLargeError
        case .minimumLength: return NSValidationStringTooShortError
        case .maximumLength: return NSValidationStringTooLongError
        case .earliest: return NSValidationDateTooSoonError
        case .latest: return NSValidationDateTooLateError
        case .pattern: return NSValidationStringPatternMatchingError
        case .minimumCount: return NSValidationRelationshipLacksMinimumCountError
        case .maximumCount: return NSValidationRelationshipExceedsMaximumCountError
        case .deny: return NSValidationRelationshipDeniedDeleteError
        case .type, .predicate, .danglingReference, .custom: return NSManagedObjectValidationError
        }
    }

    /// Core Data's user info for this failure: the object's ID, the key, the value, the predicate.
    public var userInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description, NSValidationValueErrorKey: value]
        if let objectID { info[NSValidationObjectErrorKey] = objectID }
        if let property { info[NSValidationKeyErrorKey] = property }
        if case .predicate(let format) = rule { info[NSValidationPredicateErrorKey] = format }
        if let underlying = underlyingError { info[NSUnderlyingErrorKey] = underlying }
        return info
    }

    /// The error the object's own validation code threw, rebuilt from its domain and code.
    var underlyingError: NSError? {
        guard let underlyingDomain else { return nil }
        return NSError(domain: underlyingDomain, code: underlyingCode ?? 0, userInfo: [NSLocalizedDescriptionKey: message])
    }

    /// The failure as an NSError on its own: the object's own error as it threw it, else Core
    /// Data's code with this failure's keys (what `NSDetailedErrorsKey` lists).
    var nsError: NSError {
        if let underlyingDomain {
            var info = userInfo
            info[NSUnderlyingErrorKey] = nil
            return NSError(domain: underlyingDomain, code: underlyingCode ?? 0, userInfo: info)
        }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: userInfo)
    }
}

extension ValidationError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    /// The failure's code, or `NSValidationMultipleErrorsError` for several.
    public var errorCode: Int { failures.count == 1 ? failures[0].code : NSValidationMultipleErrorsError }

    /// One failure's keys; for several, each failure as an NSError under `NSDetailedErrorsKey`.
    public var errorUserInfo: [String: Any] {
        if failures.count == 1 { return failures[0].userInfo }
        return [NSLocalizedDescriptionKey: description,
                NSDetailedErrorsKey: failures.map(\.nsError)]
    }
}

extension MergeError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }
    public var errorCode: Int { NSManagedObjectMergeError }
    /// The conflicts (``MergeConflict``s) under `NSPersistentStoreSaveConflictsErrorKey`.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, NSPersistentStoreSaveConflictsErrorKey: conflicts]
    }
}

extension StoreError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    public var errorCode: Int {
        switch self {
        case .conflicts: return NSManagedObjectMergeError
        case .uniquenessViolation: return NSManagedObjectConstraintMergeError
        case .incompatibleModel: return NSPersistentStoreIncompatibleVersionHashError
        case .unsupportedRequest: return NSPersistentStoreUnsupportedRequestTypeError
        case .io: return NSPersistentStoreOperationError
        case .unknownStore: return NSPersistentStoreInvalidTypeError
        case .foreignObjectID: return NSCoreDataError
        }
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        switch self {
        case .conflicts(let conflicts): info[NSPersistentStoreSaveConflictsErrorKey] = conflicts
        case let .uniquenessViolation(entity, properties, ids):
            info[NSAffectedObjectsErrorKey] = ids
            // Core Data's NSConstraintConflicts under conflictList: the new object and the one it duplicates.
            if ids.count == 2 {
                info[NSPersistentStoreSaveConflictsErrorKey] = [ConstraintConflict(entity: entity, properties: properties,
                                                                                   duplicateID: ids[0], originalID: ids[1])]
            }
        case .io(let path, _), .incompatibleModel(let path, _): info[NSFilePathErrorKey] = path
        case .unsupportedRequest, .unknownStore, .foreignObjectID: break
        }
        return info
    }
}

extension MigrationError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    public var errorCode: Int {
        switch kind {
        case .inference: return NSInferredMappingModelError
        case .missingSourceModel: return NSMigrationMissingSourceModelError
        case .missingMappingModel: return NSMigrationMissingMappingModelError
        case .migration, .mappingModelFile: return NSMigrationError
        case .cancelled: return NSMigrationCancelledError
        }
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let path { info[NSFilePathErrorKey] = path }
        return info
    }
}

extension ContextError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    public var errorCode: Int {
        switch self {
        case .objectNotFound, .inaccessibleFault: return NSManagedObjectReferentialIntegrityError
        case .noStore, .unknownEntity: return NSCoreDataError
        case .willSaveKeepsChanging: return NSPersistentStoreSaveError
        }
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        switch self {
        case .objectNotFound(let id), .inaccessibleFault(let id): info[NSAffectedObjectsErrorKey] = [id]
        case .willSaveKeepsChanging(let ids): info[NSAffectedObjectsErrorKey] = ids
        case .noStore, .unknownEntity: break
        }
        return info
    }
}

/// As Core Data reports SQLite's failures: `NSSQLiteError` in NSCocoaErrorDomain, SQLite's own
/// result code under `NSSQLiteErrorDomain`.
extension SQLiteError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }
    public var errorCode: Int { NSSQLiteError }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, NSSQLiteErrorDomain: Int(code), NSFilePathErrorKey: path]
    }
}
