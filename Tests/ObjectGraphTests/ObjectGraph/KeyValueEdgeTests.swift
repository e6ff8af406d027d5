// Key-value coding on managed objects at its edges: key paths through to-many relationships
// (sets answer sets of distinct values without nil, ordered sets ordered sets, while predicates
// keep their own traversal), `self`, transient values across refreshes and merges, fetched
// properties (their request's options, the `$FETCH_SOURCE` and `$FETCHED_PROPERTY` variables, a
// fetch that fails, their objects kept until a refresh or a reset), derived attributes computed
// by both stores, and collection operators over empty relationships agreeing with predicate
// evaluation on pending objects and on both stores.
import Foundation
import XCTest
@testable import ObjectGraph

final class KeyValueEdgeTests: XCTestCase {
    /// Shelves, books (comics among them) and readers: a transient attribute, derived attributes
    /// (`books.@count` through a foreign key, `fans.@count` through a join table, `shelf.name`
    /// through a to-one relationship, `now()`), and fetched properties whose requests use a fetch
    /// limit, no sub-entities, `$FETCH_SOURCE.name`, `$FETCHED_PROPERTY.userInfo.wanted`, and a
    /// predicate no store can evaluate (`title CONTAINS 1`).
    static let shelfXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        <entity name="Shelf" representedClassName="Shelf">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="note" optional="YES" attributeType="String" transient="YES"/>
            <attribute name="bookCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="books.@count" usesScalarValueType="YES"/>
            <attribute name="touched" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
            <fetchedProperty name="plainBooks" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="shelf == $FETCH_SOURCE" includesSubentities="NO"/>
            </fetchedProperty>
            <fetchedProperty name="broken" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="title CONTAINS 1"/>
            </fetchedProperty>
            <fetchedProperty name="firstBook" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="shelf == $FETCH_SOURCE" fetchLimit="1"/>
            </fetchedProperty>
            <fetchedProperty name="namesakes" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="title == $FETCH_SOURCE.name"/>
            </fetchedProperty>
            <fetchedProperty name="wantedBooks" optional="YES">
                <userInfo>
                    <entry key="wanted" value="Dune"/>
                </userInfo>
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="title == $FETCHED_PROPERTY.userInfo.wanted"/>
            </fetchedProperty>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="shelfName" optional="YES" attributeType="String" derived="YES" derivationExpression="shelf.name"/>
            <attribute name="fanCount" optional="YES" attributeType="Integer 32" derived="YES" derivationExpression="fans.@count" usesScalarValueType="YES"/>
            <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
            <relationship name="fans" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Reader" inverseName="favorites" inverseEntity="Reader"/>
        </entity>
        <entity name="Comic" representedClassName="Comic" parentEntity="Book"/>
        <entity name="Reader" representedClassName="Reader">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="favorites" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="fans" inverseEntity="Book"/>
        </entity>
    </model>
    """
    static let shelfModel: ManagedObjectModel = try! ManagedObjectModel(xmlData: Data(shelfXML.utf8))

    /// The elements of a collection a key path answered, strings as strings and anything else
    /// (a null object among them) as nil.
    private func strings(_ value: Any?) -> [String?]? {
        KeyValueAccess.collectionElements(value)?.map { $0 as? String }
    }

    /// A saved shelf named "Dune" holding Dune, Emma and Ulysses, read in a fresh context.
    private func savedShelf(_ stack: Stack) throws -> ManagedObject {
        let shelf = stack.insert("Shelf", ["name": "Dune"])
        for title in ["Dune", "Emma", "Ulysses"] { stack.insert("Book", ["title": title, "shelf": shelf]) }
        try stack.context.save()
        return try XCTUnwrap(try stack.fetch("Shelf", in: stack.newContext()).first)
    }

    // MARK: Key paths through to-many relationships

    /// Event.attendees is unordered. Foundation, NSSet.value(forKey:): "The returned set will not
    /// contain any elements corresponding to instances of valueForKey: returning nil (note that
    /// this is in contrast with NSArray's implementation, which may put NSNull values in the arrays
    /// it returns)." Core Data answers a to-many relationship's key with a set, so
    /// `attendees.lastName` of two attendees, one without a last name, is {"Lovelace"}, a
    /// `Set<AnyHashable>`.
    /// Foundation's dictionaryWithValues(forKeys:) ("nil values ... are replaced with NSNull")
    /// and setValuesForKeys(_:) ("NSNull ... is converted to nil"), each set a change that undo
    /// takes back.
    func testDictionaryWithValuesAndSetValuesForKeys() throws {
        try forEachStore(undo: true) { stack in
            let ada = stack.person("Ada", "Lovelace")
            try stack.context.save()
            let values = ada.dictionaryWithValues(forKeys: ["firstName", "lastName", "email"])
            XCTAssertEqual(values["firstName"] as? String, "Ada")
            XCTAssertTrue(values["email"] is NSNull, "\(stack.storeType)")
            ada.setValuesForKeys(["firstName": "Augusta", "lastName": NSNull()])
            XCTAssertEqual(ada.value(forKey: "firstName") as? String, "Augusta")
            XCTAssertNil(ada.value(forKey: "lastName"))
            XCTAssertEqual(Set(ada.changedValues().keys), ["firstName", "lastName"])
            stack.context.processPendingChanges()
            stack.context.undoManager?.undo()
            XCTAssertEqual(ada.value(forKey: "lastName") as? String, "Lovelace", "\(stack.storeType)")
        }
    }

    func testKeyPathThroughAnUnorderedToManyLeavesOutNilValues() throws {
        try forEachStore { stack in
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([stack.person("Ada", "Lovelace"), stack.person("Bob")]), forKey: "attendees")
            let lastNames = try XCTUnwrap(strings(meeting.value(forKeyPath: "attendees.lastName")), "\(stack.storeType)")
            XCTAssertEqual(lastNames, ["Lovelace"], "\(stack.storeType): a null object stands for Bob's nil last name")
            XCTAssertEqual(meeting.value(forKeyPath: "attendees.lastName") as? Set<AnyHashable>, ["Lovelace"], "\(stack.storeType)")
        }
    }

    /// The predicate evaluator keeps its own traversal: a key path through a to-many relationship
    /// holds a null object for each nil value, so `ANY attendees.lastName == nil` matches Bob's
    /// meeting, on pending objects as in both stores (whose SQL join sees Bob's NULL), while
    /// key-value coding leaves the nil out.
    func testPredicatesStillSeeNilValuesThroughToManyRelationships() throws {
        try forEachStore { stack in
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([stack.person("Ada", "Lovelace"), stack.person("Bob")]), forKey: "attendees")
            let predicate = try Predicate(format: "ANY attendees.lastName == nil")
            XCTAssertTrue(try predicate.evaluate(with: meeting), "\(stack.storeType): pending")
            XCTAssertEqual(try stack.fetch("Event", "ANY attendees.lastName == nil").count, 1, "\(stack.storeType): pending fetch")
            try stack.context.save()
            XCTAssertEqual(try stack.fetch("Event", "ANY attendees.lastName == nil", in: stack.newContext()).count, 1,
                           "\(stack.storeType): stored")
        }
    }

    /// Event.preparation is unordered, Task.owner to-one. NSSet.value(forKey:) returns "a set
    /// containing the results of invoking valueForKey: ... on each of the receiving set's
    /// members" without nil results, so each further key of the path applies to a set again:
    /// `preparation.owner` of three tasks (two owners, one task without owner) is a set of two
    /// people, whose `@count` is 2, and `preparation.owner.firstName` of two people both named Ada
    /// is {"Ada"}.
    func testKeyPathThroughAnUnorderedToManyAndAToOneIsASetOfDistinctValues() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            let otherAda = stack.person("Ada", "Byron")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([stack.task("T1", owner: ada), stack.task("T2", owner: otherAda), stack.task("T3")]),
                             forKey: "preparation")
            XCTAssertEqual(meeting.value(forKeyPath: "preparation.owner.@count") as? Int, 2,
                           "\(stack.storeType): the task without an owner counts as an owner")
            let names = try XCTUnwrap(strings(meeting.value(forKeyPath: "preparation.owner.firstName")), "\(stack.storeType)")
            XCTAssertEqual(names, ["Ada"], "\(stack.storeType): the names of a set of owners are not distinct")
        }
    }

    /// The collection operators agree with the collections keys answer: `@count` after a key
    /// counts its distinct values, and `@distinctUnionOfObjects` gives the same values (as an
    /// array, as Foundation's operators do), nil left out.
    func testCollectionOperatorsAgreeWithTheSetsKeysAnswer() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada", "Lovelace")
            let meeting = stack.event("Meeting")
            meeting.setValue(Set([stack.task("T1", owner: ada), stack.task("T2", owner: ada), stack.task("T3")]), forKey: "preparation")
            let owners = try XCTUnwrap(meeting.value(forKeyPath: "preparation.@distinctUnionOfObjects.owner") as? [Any])
            XCTAssertEqual(owners.count, 1, "\(stack.storeType)")
            XCTAssertTrue(owners.first as? ManagedObject === ada, "\(stack.storeType)")
            XCTAssertEqual(meeting.value(forKeyPath: "preparation.owner.@count") as? Int, 1, "\(stack.storeType)")
            XCTAssertEqual(meeting.value(forKeyPath: "preparation.@count") as? Int, 3, "\(stack.storeType)")
            XCTAssertEqual(strings(meeting.value(forKeyPath: "preparation.@distinctUnionOfObjects.owner.lastName")),
                           strings(meeting.value(forKeyPath: "preparation.owner.lastName")), "\(stack.storeType)")
        }
    }

    /// Person.tasks is ordered. Foundation, NSOrderedSet.value(forKey:): "The returned ordered
    /// set will not contain any elements corresponding to instances of valueForKey: returning
    /// nil, nor will it contain duplicates." Tasks titled Zed, Zed, apple (notes "n", nil, nil)
    /// give `tasks.title` = [Zed, apple] and `tasks.notes` = [n], `OrderedSet<AnyHashable>`s.
    func testKeyPathThroughAnOrderedToManyDropsNilValuesAndDuplicates() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            stack.task("Zed", priority: 1, owner: ada).setValue("n", forKey: "notes")
            _ = stack.task("Zed", priority: 2, owner: ada)
            _ = stack.task("apple", priority: 3, owner: ada)
            XCTAssertEqual(strings(ada.value(forKeyPath: "tasks.title")), ["Zed", "apple"], "\(stack.storeType)")
            XCTAssertEqual(strings(ada.value(forKeyPath: "tasks.notes")), ["n"], "\(stack.storeType)")
            XCTAssertEqual(ada.value(forKeyPath: "tasks.title") as? OrderedSet<AnyHashable>, ["Zed", "apple"], "\(stack.storeType)")
            XCTAssertEqual(ada.value(forKeyPath: "tasks.title.@count") as? Int, 2, "\(stack.storeType)")
        }
    }

    // MARK: self

    /// `self` is a key every object answers in Foundation's key-value coding (NSObject's `-self`;
    /// it is what `@max.self` uses), and KeyValueAccess documents "every value answers `self`":
    /// `value(forKeyPath: "self")` and a managed object's own `value(forKey: "self")` both do.
    func testValueForKeySelfAnswersTheObject() throws {
        try forEachStore { stack in
            let ada = stack.person("Ada")
            XCTAssertTrue(ada.value(forKeyPath: "self") as? ManagedObject === ada, "\(stack.storeType)")
            XCTAssertTrue(ada.value(forKey: "self") as? ManagedObject === ada,
                          "\(stack.storeType): value(forKey: \"self\") answered \(String(describing: ada.value(forKey: "self")))")
        }
    }

    // MARK: Transient properties

    /// NSManagedObjectContext.refresh(_:mergeChanges:): "If flag is YES, this method does not
    /// affect any transient properties; if flag is NO, transient properties are disposed of."
    /// refreshAllObjects() refreshes "while preserving the unsaved changes" (WWDC 2015, seed 004)
    /// and mergeChanges(fromContextDidSave:) refreshes the updated objects merging changes: a
    /// transient value set before the last save survives all three, although the object has no
    /// unsaved change.
    func testTransientValuesSurviveRefreshesThatMergeChanges() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            shelf.setValue("remember me", forKey: "note")
            try stack.context.save()
            XCTAssertEqual(shelf.value(forKey: "note") as? String, "remember me", "\(stack.storeType): after the save")

            stack.context.refresh(shelf, mergeChanges: true)
            XCTAssertEqual(shelf.value(forKey: "note") as? String, "remember me", "\(stack.storeType): after refresh(_:mergeChanges: true)")

            shelf.setValue("remember me", forKey: "note")
            try stack.context.save()
            stack.context.refreshAllObjects()
            XCTAssertEqual(shelf.value(forKey: "note") as? String, "remember me", "\(stack.storeType): after refreshAllObjects()")

            shelf.setValue("remember me", forKey: "note")
            try stack.context.save()
            let other = stack.newContext()
            other.object(with: shelf.objectID).setValue("Poetry", forKey: "name")
            stack.context.mergeChanges(fromContextDidSave: try savePayload(of: other))
            XCTAssertEqual(shelf.value(forKey: "name") as? String, "Poetry", "\(stack.storeType): the merged change")
            XCTAssertEqual(shelf.value(forKey: "note") as? String, "remember me", "\(stack.storeType): after merging another context's save")
        }
    }

    /// The same for an object with an unsaved change: the refresh reloads its saved values and
    /// reapplies the change, and the transient value set before the last save stays too (only
    /// changed slots used to be reapplied).
    func testTransientValuesSurviveAMergingRefreshOfAChangedObject() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            shelf.setValue("remember me", forKey: "note")
            try stack.context.save()
            shelf.setValue("Poetry", forKey: "name")
            stack.context.refresh(shelf, mergeChanges: true)
            XCTAssertEqual(shelf.value(forKey: "name") as? String, "Poetry", "\(stack.storeType): the unsaved change")
            XCTAssertEqual(shelf.value(forKey: "note") as? String, "remember me", "\(stack.storeType): the transient value")
        }
    }

    /// "If flag is NO, transient properties are disposed of": refresh(_:mergeChanges: false)
    /// turns the object into a fault, transient values and all.
    func testRefreshWithoutMergingDisposesOfTransientValues() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            shelf.setValue("forget me", forKey: "note")
            try stack.context.save()
            stack.context.refresh(shelf, mergeChanges: false)
            XCTAssertTrue(shelf.isFault, "\(stack.storeType)")
            XCTAssertNil(shelf.value(forKey: "note"), "\(stack.storeType)")
            XCTAssertEqual(shelf.value(forKey: "name") as? String, "Fiction", "\(stack.storeType)")
        }
    }

    // MARK: Fetched properties

    /// NSFetchedPropertyDescription: "The effect of a fetched property is similar to executing a
    /// fetch request yourself"; its value is the result of the property's fetch request. The
    /// model's request has fetchLimit="1" (read into FetchRequestTemplate.fetchLimit), so the
    /// property holds one book, not all three.
    func testFetchedPropertyHonoursItsRequestsFetchLimit() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = try savedShelf(stack)
            let books = try XCTUnwrap(shelf.value(forKey: "firstBook") as? [ManagedObject], "\(stack.storeType)")
            XCTAssertEqual(books.count, 1, "\(stack.storeType): fetchLimit=1 answered \(books.count) books")
        }
    }

    /// The request's other options go with it too: includesSubentities="NO" leaves the comic on
    /// the shelf out of `plainBooks`.
    func testFetchedPropertyHonoursItsRequestsSubentitiesOption() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = stack.insert("Shelf", ["name": "Mixed"])
            stack.insert("Book", ["title": "Dune", "shelf": shelf])
            stack.insert("Comic", ["title": "Tintin", "shelf": shelf])
            try stack.context.save()
            let books = try XCTUnwrap(shelf.value(forKey: "plainBooks") as? [ManagedObject], "\(stack.storeType)")
            XCTAssertEqual(books.map { $0.value(forKey: "title") as? String }, ["Dune"], "\(stack.storeType)")
        }
    }

    /// A fetched property's results are ordered by its request's sort descriptors, which Core
    /// Data sets in code (the model file has no place for them).
    func testFetchedPropertyHonoursItsRequestsSortDescriptors() throws {
        let model = try ManagedObjectModel(xmlData: Data(Self.shelfXML.utf8))
        let shelfEntity = try XCTUnwrap(model.entitiesByName["Shelf"])
        let plain = try XCTUnwrap(shelfEntity.propertiesByName["plainBooks"] as? FetchedPropertyDescription)
        plain.fetchRequest.sortDescriptors = [SortDescriptor(key: "title", ascending: false)]
        try forEachStore(model: model) { stack in
            let shelf = try savedShelf(stack)
            let books = try XCTUnwrap(shelf.value(forKey: "plainBooks") as? [ManagedObject], "\(stack.storeType)")
            XCTAssertEqual(books.map { $0.value(forKey: "title") as? String }, ["Ulysses", "Emma", "Dune"], "\(stack.storeType)")
        }
    }

    /// Core Data Programming Guide, Fetched Properties: "The source refers to the specific
    /// managed object that has this property, and you can create key paths that originate with
    /// that source, for example, university.name LIKE [c] $FETCH_SOURCE.searchTerm."
    /// `title == $FETCH_SOURCE.name` on a shelf named Dune finds the book Dune: the key path is
    /// evaluated against the shelf before the predicate goes to the store.
    func testFetchSourceKeyPathInAFetchedPropertyPredicate() throws {
        // The SQLite store cannot walk a key path of an object (it knows rows): it receives the
        // constant "Dune", as the in-memory store does.
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = try savedShelf(stack)
            let books = try XCTUnwrap(shelf.value(forKey: "namesakes") as? [ManagedObject])
            XCTAssertEqual(books.map { $0.value(forKey: "title") as? String }, ["Dune"], "\(stack.storeType)")
        }
    }

    /// NSFetchedPropertyDescription: "$FETCH_SOURCE and $FETCHED_PROPERTY. ... the property refers
    /// to the NSFetchedPropertyDescription object itself (which may have a user info associated
    /// with it that you want to use)"; the Core Data Programming Guide's example predicate uses
    /// `favoriteColor LIKE [c] $FETCHED_PROPERTY.userInfo.color`. `$FETCHED_PROPERTY` is the
    /// description, so `$FETCHED_PROPERTY.userInfo.wanted` is "Dune".
    func testFetchedPropertyUserInfoInAFetchedPropertyPredicate() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = try savedShelf(stack)
            let books = try XCTUnwrap(shelf.value(forKey: "wantedBooks") as? [ManagedObject])
            XCTAssertEqual(books.map { $0.value(forKey: "title") as? String }, ["Dune"], "\(stack.storeType)")
        }
    }

    /// A fetched property whose fetch fails (`title CONTAINS 1`: no store can compare a string
    /// with a number) does not stop the process: key-value access, which cannot throw, answers
    /// no objects (Core Data raises), and fetchedObjects(forKey:) throws the error.
    func testAFetchedPropertyWhoseFetchFailsAnswersNoObjectsAndThrowsWhenAsked() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = try savedShelf(stack)
            XCTAssertEqual((shelf.value(forKey: "broken") as? [ManagedObject])?.count, 0, "\(stack.storeType)")
            XCTAssertThrowsError(try shelf.fetchedObjects(forKey: "broken"), "\(stack.storeType)")
            XCTAssertEqual(try shelf.fetchedObjects(forKey: "namesakes").count, 1, "\(stack.storeType)")
        }
    }

    // MARK: Fetched properties are cached

    /// The titles of the objects of `shelf`'s fetched property `key`.
    private func titles(_ shelf: ManagedObject, _ key: String) throws -> [String?] {
        try shelf.fetchedObjects(forKey: key).map { $0.value(forKey: "title") as? String }
    }

    /// A saved shelf (``savedShelf(_:)``) and its context, its `wantedBooks` read once: the
    /// context holds the one Dune for it.
    private func shelfAfterReadingWantedBooks(_ stack: Stack, file: StaticString = #filePath, line: UInt = #line)
        throws -> (shelf: ManagedObject, context: ManagedObjectContext) {
        let shelf = try savedShelf(stack)
        let context = try XCTUnwrap(shelf.managedObjectContext, file: file, line: line)
        XCTAssertEqual(try titles(shelf, "wantedBooks"), ["Dune"], "\(stack.storeType)", file: file, line: line)
        XCTAssertEqual(context.objectsWithCachedFetchedProperties, 1, "\(stack.storeType)", file: file, line: line)
        return (shelf, context)
    }

    /// Core Data Programming Guide, Fetched Properties: "Fetched properties are not dynamic: If
    /// objects in the destination entity are changed, you must reevaluate the fetched property to
    /// ensure it is up to date. You use refreshObject:mergeChanges: to manually refresh the
    /// properties". A second Dune inserted after the first read is not among `wantedBooks`
    /// (through fetchedObjects(forKey:) or key-value access) until the shelf is refreshed.
    func testAFetchedPropertyIsNotReevaluatedUntilItsObjectIsRefreshed() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let (shelf, context) = try shelfAfterReadingWantedBooks(stack)
            stack.insert("Book", ["title": "Dune"], into: context)
            XCTAssertEqual(try titles(shelf, "wantedBooks"), ["Dune"], "\(stack.storeType): the second read fetched again")
            XCTAssertEqual((shelf.value(forKey: "wantedBooks") as? [ManagedObject])?.count, 1, "\(stack.storeType)")
            context.refresh(shelf, mergeChanges: false)
            XCTAssertEqual(try titles(shelf, "wantedBooks"), ["Dune", "Dune"], "\(stack.storeType): after the refresh")
        }
    }

    /// A refresh that merges changes (the object has unsaved ones, so it stays a full object)
    /// re-evaluates the fetched property too, and keeps the changes.
    func testARefreshMergingChangesReevaluatesAFetchedProperty() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let (shelf, context) = try shelfAfterReadingWantedBooks(stack)
            shelf.setValue("Renamed", forKey: "name")
            stack.insert("Book", ["title": "Dune"], into: context)
            context.refresh(shelf, mergeChanges: true)
            XCTAssertEqual(try titles(shelf, "wantedBooks"), ["Dune", "Dune"], "\(stack.storeType): after the refresh")
            XCTAssertEqual(shelf.value(forKey: "name") as? String, "Renamed", "\(stack.storeType)")
        }
    }

    /// A save does not re-evaluate a fetched property: after saving a second Dune, the shelf
    /// answers the very objects of its first read.
    func testASaveKeepsTheCachedObjectsOfAFetchedProperty() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let (shelf, context) = try shelfAfterReadingWantedBooks(stack)
            let first = try shelf.fetchedObjects(forKey: "wantedBooks")
            stack.insert("Book", ["title": "Dune"], into: context)
            try context.save()
            let afterSave = try shelf.fetchedObjects(forKey: "wantedBooks")
            XCTAssertEqual(afterSave.count, 1, "\(stack.storeType): the save re-evaluated the property")
            XCTAssertTrue(afterSave.first === first.first, "\(stack.storeType)")
            XCTAssertEqual(try stack.fetch("Book", "title == 'Dune'", in: context).count, 2, "\(stack.storeType): the book was saved")
        }
    }

    /// reset() forgets every cached fetched property; the shelf fetched again sees the second
    /// Dune another context saved meanwhile.
    func testResettingTheContextForgetsCachedFetchedProperties() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let context = try shelfAfterReadingWantedBooks(stack).context
            stack.insert("Book", ["title": "Dune"])
            try stack.context.save()
            context.reset()
            XCTAssertEqual(context.objectsWithCachedFetchedProperties, 0, "\(stack.storeType): after the reset")
            let again = try XCTUnwrap(try stack.fetch("Shelf", in: context).first)
            XCTAssertEqual(try titles(again, "wantedBooks"), ["Dune", "Dune"], "\(stack.storeType)")
        }
    }

    /// A fetch that fails is not cached: fetchedObjects(forKey:) throws at every read, and
    /// key-value access, which answers no objects, keeps nothing either.
    func testAFetchedPropertyWhoseFetchFailsIsNotCached() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = try savedShelf(stack)
            let context = try XCTUnwrap(shelf.managedObjectContext)
            XCTAssertThrowsError(try shelf.fetchedObjects(forKey: "broken"), "\(stack.storeType)")
            XCTAssertThrowsError(try shelf.fetchedObjects(forKey: "broken"), "\(stack.storeType): the second read")
            XCTAssertEqual((shelf.value(forKey: "broken") as? [ManagedObject])?.count, 0, "\(stack.storeType)")
            XCTAssertEqual(context.objectsWithCachedFetchedProperties, 0, "\(stack.storeType)")
        }
    }

    /// An object's cached fetched properties go when it deallocates (the context would otherwise
    /// keep the objects they hold, and a new object at the same address would answer them).
    func testADeallocatedObjectsCachedFetchedPropertyGoes() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            // A shelf that no book refers to, so that nothing the cache holds keeps it alive.
            stack.insert("Shelf", ["name": "Empty"])
            stack.insert("Book", ["title": "Dune"])
            try stack.context.save()
            let context = stack.newContext()
            do {
                let shelf = try XCTUnwrap(try stack.fetch("Shelf", in: context).first)
                XCTAssertEqual(try titles(shelf, "wantedBooks"), ["Dune"], "\(stack.storeType)")
                XCTAssertEqual(context.objectsWithCachedFetchedProperties, 1, "\(stack.storeType)")
            }
            XCTAssertEqual(context.registeredObjects.filter { $0.entity.name == "Shelf" }.count, 0, "\(stack.storeType): the shelf lives on")
            XCTAssertEqual(context.objectsWithCachedFetchedProperties, 0, "\(stack.storeType)")
        }
    }

    /// An object that leaves the context (deleted and saved: unregistered) takes its cached
    /// fetched properties with it, though it is still alive.
    func testAnObjectUnregisteredBySavingItsDeletionLeavesNoCachedFetchedProperty() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let (shelf, context) = try shelfAfterReadingWantedBooks(stack)
            context.delete(shelf)
            try context.save()
            XCTAssertNil(shelf.managedObjectContext, "\(stack.storeType)")
            XCTAssertEqual(context.objectsWithCachedFetchedProperties, 0, "\(stack.storeType)")
        }
    }

    // MARK: Derived attributes

    /// NSDerivedAttributeDescription: "Create a derived relationshipCount attribute to reflect the
    /// number of objects in a relationship and avoid having to do a join", with `friends.@count`
    /// as the example of a to-many key path with a function. The store computes `books.@count`
    /// when the shelf is saved: stored, and in the saved object.
    func testDerivedCountAttributeIsComputedWhenSaved() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            for title in ["Dune", "Emma", "Ulysses"] { stack.insert("Book", ["title": title, "shelf": shelf]) }
            try stack.context.save()
            let stored = try XCTUnwrap(try stack.fetch("Shelf", in: stack.newContext()).first)
            XCTAssertEqual(stored.value(forKey: "bookCount") as? Int64, 3,
                           "\(stack.storeType): stored bookCount: \(String(describing: stored.value(forKey: "bookCount")))")
            XCTAssertEqual(shelf.value(forKey: "bookCount") as? Int64, 3, "\(stack.storeType): the saved object")
            XCTAssertEqual(try stack.fetch("Shelf", "bookCount == 3", in: stack.newContext()).count, 1, "\(stack.storeType): fetched by it")
        }
    }

    /// The count follows its relationship: moving a book to another shelf and deleting one, in
    /// another context, changes the stored counts of both shelves.
    func testDerivedCountFollowsMovesAndDeletions() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let fiction = stack.insert("Shelf", ["name": "Fiction"])
            let poetry = stack.insert("Shelf", ["name": "Poetry"])
            let dune = stack.insert("Book", ["title": "Dune", "shelf": fiction])
            let emma = stack.insert("Book", ["title": "Emma", "shelf": fiction])
            try stack.context.save()
            let other = stack.newContext()
            other.object(with: dune.objectID).setValue(other.object(with: poetry.objectID), forKey: "shelf")
            other.delete(other.object(with: emma.objectID))
            try other.save()
            let counts = try stack.fetch("Shelf", sortedBy: "name", in: stack.newContext()).map { $0.value(forKey: "bookCount") as? Int64 }
            XCTAssertEqual(counts, [0, 1], "\(stack.storeType): Fiction, Poetry")
        }
    }

    /// A many-to-many relationship (a join table in SQLite) counts too: `fans.@count`.
    func testDerivedCountOfAManyToManyRelationship() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let dune = stack.insert("Book", ["title": "Dune"])
            let ada = stack.insert("Reader", ["name": "Ada"])
            let bob = stack.insert("Reader", ["name": "Bob"])
            dune.setValue(Set([ada, bob]), forKey: "fans")
            try stack.context.save()
            XCTAssertEqual(try stored(stack, dune.objectID).value(forKey: "fanCount") as? Int32, 2, "\(stack.storeType)")
            stack.context.delete(bob)
            try stack.context.save()
            let book = try XCTUnwrap(try stack.fetch("Book", in: stack.newContext()).first)
            XCTAssertEqual(book.value(forKey: "fanCount") as? Int32, 1, "\(stack.storeType)")
        }
    }

    /// A derived attribute may copy an attribute of a to-one destination (`shelf.name`): renaming
    /// the shelf, which saves only the shelf, changes the stored copy in its books.
    func testDerivedKeyPathThroughAToOneFollowsTheDestination() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            let dune = stack.insert("Book", ["title": "Dune", "shelf": shelf])
            try stack.context.save()
            XCTAssertEqual(dune.value(forKey: "shelfName") as? String, "Fiction", "\(stack.storeType): the saved object")
            shelf.setValue("Classics", forKey: "name")
            try stack.context.save()
            let book = try XCTUnwrap(try stack.fetch("Book", in: stack.newContext()).first)
            XCTAssertEqual(book.value(forKey: "shelfName") as? String, "Classics", "\(stack.storeType)")
        }
    }

    /// `now()` is the time of the save that last wrote the row.
    func testDerivedNowIsTheTimeOfTheSave() throws {
        try forEachStore(model: Self.shelfModel) { stack in
            let before = Date()
            let shelf = stack.insert("Shelf", ["name": "Fiction"])
            try stack.context.save()
            let after = Date()
            let touched = try XCTUnwrap(try stored(stack, shelf.objectID).value(forKey: "touched") as? Date, "\(stack.storeType)")
            // SQLite's clock keeps milliseconds.
            XCTAssertGreaterThanOrEqual(touched.timeIntervalSince(before), -0.001, "\(stack.storeType)")
            XCTAssertLessThanOrEqual(touched.timeIntervalSince(after), 0.001, "\(stack.storeType)")
        }
    }

    /// Rows deleted by a batch delete, which no context saves, are no longer counted: the SQLite
    /// store keeps derived values with triggers, whoever writes.
    func testDerivedCountFollowsABatchDelete() throws {
        let stack = try Stack(storeType: .sqlite, model: Self.shelfModel)
        _ = try savedShelf(stack)
        let book = try XCTUnwrap(Self.shelfModel.entitiesByName["Book"])
        _ = try stack.context.execute(BatchDeleteRequest(entity: book))
        let shelf = try XCTUnwrap(try stack.fetch("Shelf", in: stack.newContext()).first)
        XCTAssertEqual(shelf.value(forKey: "bookCount") as? Int64, 0)
    }

    /// A SQLite file whose derived columns have no triggers yet (written before they had them,
    /// or by another program) gets them when it is opened, with the values of the rows already
    /// stored computed once.
    func testOpeningAStoreWithoutTheTriggersComputesTheDerivedValues() throws {
        let stack = try Stack(storeType: .sqlite, model: Self.shelfModel)
        _ = try savedShelf(stack)
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'trigger'") {
            guard case .text(let name) = row[0] else { continue }
            try connection.execute("DROP TRIGGER \"\(name)\"")
        }
        try connection.execute("UPDATE ZSHELF SET ZBOOKCOUNT = NULL")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.shelfModel)
        try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let shelf = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
        XCTAssertEqual(shelf.value(forKey: "bookCount") as? Int64, 3)
    }

    /// Derivations the stores do not compute are refused when the model loads, each at its line:
    /// a function (`canonical:`), a key path through an attribute, a count into a string, and a
    /// key path through a to-many relationship.
    func testUnsupportedDerivationsAreRefusedAtTheirLines() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
                <entity name="Shelf">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="searchName" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(name)"/>
                    <attribute name="nameLength" optional="YES" attributeType="Integer 32" derived="YES" derivationExpression="name.length"/>
                    <attribute name="count" optional="YES" attributeType="String" derived="YES" derivationExpression="books.@count"/>
                    <attribute name="titles" optional="YES" attributeType="String" derived="YES" derivationExpression="books.title"/>
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelf" inverseEntity="Book"/>
                </entity>
                <entity name="Book">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf"/>
                </entity>
            </model>
            """
        let path = "/models/Derived.xcdatamodel/contents"
        let result = ModelFileReader.readAndValidate(Data(xml.utf8), path: path)
        XCTAssertEqual(result.errors.map { $0.location?.line ?? 0 }, [5, 6, 7, 8], "\(result.issues)")
        XCTAssertEqual(result.errors.map { $0.property ?? "" }, ["searchName", "nameLength", "count", "titles"])
        XCTAssertTrue(result.errors.allSatisfy { $0.kind == .unsupportedDerivation && $0.location?.file == path })
        XCTAssertThrowsError(try ManagedObjectModel(xmlData: Data(xml.utf8), path: path)) { error in
            XCTAssertTrue("\(error)".contains("contents:5: error: Shelf.searchName: derivation \"canonical:(name)\""), "\(error)")
        }
    }

    // MARK: Collection operators over an empty relationship (passing guard)

    /// Guard: key-value coding answers 0 for `@sum` over an empty relationship and nil for `@avg`,
    /// `@min` and `@max` (SQL's SUM over no rows is NULL, not 0), and predicates on the same key
    /// paths must agree with it on pending objects and on both stores.
    func testAggregatesOverAnEmptyToManyAgreeWithPredicates() throws {
        for type in Stack.storeTypes {
            for saved in [false, true] {
                let stack = try Stack(storeType: type)
                let nobody = stack.person("Nobody")
                let ada = stack.person("Ada")
                stack.task("Alpha", priority: 2, owner: ada).setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "due")
                XCTAssertEqual(nobody.value(forKeyPath: "tasks.@sum.priority") as? Int, 0)
                XCTAssertNil(nobody.value(forKeyPath: "tasks.@avg.priority"))
                XCTAssertNil(nobody.value(forKeyPath: "tasks.@max.priority"))
                XCTAssertNil(nobody.value(forKeyPath: "tasks.@min.due"))
                var context = stack.context
                if saved {
                    try stack.context.save()
                    context = stack.newContext()
                }
                for format in ["tasks.@sum.priority == 0", "tasks.@avg.priority == nil", "tasks.@max.priority == nil",
                               "tasks.@min.due == nil", "tasks.@count == 0"] {
                    let found = try stack.fetch("Person", format, in: context).map { $0.value(forKey: "firstName") as? String }
                    XCTAssertEqual(found, ["Nobody"], "\(type) saved=\(saved): \(format)")
                }
            }
        }
    }
}
