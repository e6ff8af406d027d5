// Tests of the classes the ObjectGraphCodegen plugin generated for GeneratedModelFixture at build
// time: typed accessors over slots, relationship helpers that keep inverses, typed fetch requests,
// the hand-written class and extension, and objects fetched from a store coming back typed.
import Foundation
import GeneratedModelFixture
import ObjectGraph
import XCTest

final class GeneratedModelTests: XCTestCase {
    private var coordinator: PersistentStoreCoordinator!
    private var context: ManagedObjectContext!

    override func setUpWithError() throws {
        GardeningClasses.register()
        coordinator = PersistentStoreCoordinator(managedObjectModel: try GardeningModel.load())
        try coordinator.addPersistentStore(type: .inMemory)
        context = newContext()
    }

    // MARK: Finding the model

    /// As Core Data's `NSPersistentContainer(name:)`: the model is found by name among the
    /// bundles, here the fixture's resource bundle beside the test executable
    /// (`.copy("Gardening.xcdatamodeld")`); a name no bundle has is an error naming the file.
    func testAContainerFindsItsModelByNameInTheResourceBundles() throws {
        let container = try PersistentContainer(name: "Gardening")
        XCTAssertEqual(Set(container.managedObjectModel.entitiesByName.keys), ["Plan", "Gardener", "Garden", "Chore", "Memo"])
        XCTAssertThrowsError(try PersistentContainer(name: "Gardenning")) {
            XCTAssertTrue("\($0)".contains("Gardenning.xcdatamodeld: no such file"), "\($0)")
        }
    }

    // MARK: Classes

    func testObjectsInsertedByEntityNameAreOfTheGeneratedClass() {
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Gardener")) == Gardener.self)
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Chore")) == Chore.self)
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Garden")) == Garden.self)
    }

    func testEntityWithoutAClassUsesManagedObject() {
        XCTAssertTrue(type(of: context.insertNewObject(forEntityName: "Memo")) == ManagedObject.self)
    }

    func testInitWithContextInsertsAnObjectOfTheClassEntity() {
        let chore = Chore(context: context)
        XCTAssertEqual(chore.entity.name, "Chore")
        XCTAssertTrue(chore.isInserted)
        XCTAssertEqual(Chore.entityName, "Chore")
    }

    func testRegistrationListsEachClassWithTheSlotNamesOfItsEntity() throws {
        let model = try GardeningModel.load()
        let registered = Dictionary(uniqueKeysWithValues: GardeningClasses.all.map { ($0.type.entityName, $0.slotNames) })
        XCTAssertEqual(Set(registered.keys), ["Plan", "Gardener", "Garden", "Chore"])
        for (entity, names) in registered {
            XCTAssertEqual(names, model.entitiesByName[entity]?.properties.map(\.name), entity)
        }
    }

    // MARK: Attributes

    func testScalarAttributesAreNonOptionalWithTheirDefaults() {
        let gardener = Gardener(context: context)
        let chore = Chore(context: context)
        XCTAssertEqual(gardener.age, 0)
        XCTAssertTrue(gardener.isActive)
        XCTAssertEqual(chore.priority, 1)
        XCTAssertFalse(chore.done)
        XCTAssertEqual(chore.estimate, 0)
    }

    func testScalarAttributesWriteTheirSlots() {
        let gardener = Gardener(context: context)
        gardener.age = 42
        gardener.isActive = false
        let chore = Chore(context: context)
        chore.priority = 3
        chore.estimate = 1.5
        chore.done = true
        XCTAssertEqual(gardener.value(forKey: "age") as? Int16, 42)
        XCTAssertEqual(gardener.value(forKey: "isActive") as? Bool, false)
        XCTAssertEqual(chore.value(forKey: "priority") as? Int32, 3)
        XCTAssertEqual(chore.value(forKey: "estimate") as? Float, 1.5)
        XCTAssertEqual(chore.done, true)
    }

    func testTypedSettersTrackChangesLikeKeyValueSetters() throws {
        let gardener = Gardener(context: context)
        gardener.name = "Ada"
        gardener.age = 36
        try context.save()
        context.processPendingChanges()
        // Setting the stored value again is no change; a different one is, with its old value.
        gardener.name = "Ada"
        gardener.age = 36
        XCTAssertFalse(gardener.hasChanges)
        gardener.name = "Grace"
        gardener.homepage = nil
        XCTAssertEqual(gardener.changedValues().keys.sorted(), ["name"])
        XCTAssertEqual(gardener.changedValuesForCurrentEvent()["name"] as? String, "Ada")
        XCTAssertTrue(context.updatedObjects.contains(gardener))
        // The same calls through key-value coding agree.
        gardener.setValue("Grace", forKey: "name")
        XCTAssertEqual(gardener.changedValues().keys.sorted(), ["name"])
        // A value of another type than the slot's goes through the general conversion.
        gardener.setAttribute(Int(7), atSlot: gardener.entity.layout.index(of: "age")!)
        XCTAssertEqual(gardener.value(forKey: "age") as? Int16, 7)
    }

    func testObjectAttributesAreOptionalsOfTheirSwiftType() {
        let gardener = Gardener(context: context)
        XCTAssertNil(gardener.name)
        XCTAssertNil(gardener.height)
        gardener.name = "Ann"
        gardener.height = 1.72
        gardener.homepage = URL(string: "https://example.org/ann")
        gardener.photo = Data([1, 2, 3])
        gardener.balance = Decimal(string: "12.50")
        XCTAssertEqual(gardener.value(forKey: "name") as? String, "Ann")
        XCTAssertEqual(gardener.height, 1.72)
        XCTAssertEqual(gardener.homepage?.host, "example.org")
        XCTAssertEqual(gardener.photo, Data([1, 2, 3]))
        XCTAssertEqual(gardener.balance, Decimal(string: "12.5"))
        gardener.height = nil
        XCTAssertNil(gardener.value(forKey: "height"))
    }

    func testInheritedAttributesComeFromTheParentClass() {
        let chore = Chore(context: context)
        XCTAssertEqual(chore.title, "Untitled")
        chore.title = "Write tests"
        let plan: Plan = chore
        XCTAssertEqual(plan.title, "Write tests")
    }

    func testTransformableAttributeTakesItsSwiftCustomClass() {
        let gardener = Gardener(context: context)
        gardener.nicknames = ["Annie", "A."]
        XCTAssertEqual(gardener.nicknames, ["Annie", "A."])
        XCTAssertEqual(gardener.value(forKey: "nicknames") as? [String], ["Annie", "A."])
        XCTAssertNil(gardener.location)
    }

    // MARK: Relationships

    func testToOneSetterKeepsTheInverse() {
        let ann = gardener("Ann")
        let chore = Chore(context: context)
        chore.owner = ann
        XCTAssertEqual(ann.chores, [chore])
        chore.owner = nil
        XCTAssertEqual(ann.chores, [])
    }

    func testSelfRelationshipIsTypedOnBothSides() {
        let boss = gardener("Bob")
        let ann = gardener("Ann")
        ann.mentor = boss
        XCTAssertEqual(boss.apprentices, [ann])
        XCTAssertTrue(ann.mentor === boss)
    }

    func testOrderedToManyHelpersKeepTheOrderAndTheInverse() {
        let ann = gardener("Ann")
        let first = chore("First"), second = chore("Second"), third = chore("Third")
        ann.addToChores(first)
        ann.addToChores(third)
        ann.insertIntoChores(second, at: 1)
        XCTAssertEqual(ann.chores.elements, [first, second, third])
        XCTAssertTrue(second.owner === ann)
        ann.removeFromChores(at: 0)
        XCTAssertEqual(ann.chores.elements, [second, third])
        XCTAssertNil(first.owner)
        ann.removeFromChores(third)
        XCTAssertEqual(ann.chores.elements, [second])
        XCTAssertNil(third.owner)
    }

    func testOrderedToManySetterReplacesInTheGivenOrder() {
        let ann = gardener("Ann")
        let first = chore("First"), second = chore("Second")
        ann.chores = [second, first]
        XCTAssertEqual(ann.chores.elements, [second, first])
        XCTAssertTrue(first.owner === ann)
        ann.chores = [first]
        XCTAssertNil(second.owner)
    }

    func testManyToManyHelpersKeepBothSides() {
        let ann = gardener("Ann"), bob = gardener("Bob")
        let launch = Garden(context: context), audit = Garden(context: context)
        ann.addToGardens([launch, audit])
        launch.addToGardeners(bob)
        XCTAssertEqual(ann.gardens, [launch, audit])
        XCTAssertEqual(launch.gardeners, [ann, bob])
        ann.removeFromGardens([launch])
        XCTAssertEqual(launch.gardeners, [bob])
        XCTAssertEqual(audit.gardeners, [ann])
    }

    func testUnorderedToManySetterKeepsInverses() {
        let launch = Garden(context: context)
        let write = chore("Write"), ship = chore("Ship")
        launch.chores = [write, ship]
        XCTAssertTrue(write.garden === launch)
        launch.chores = [ship]
        XCTAssertNil(write.garden)
        XCTAssertTrue(ship.garden === launch)
    }

    func testAnUnorderedToManyIsAnArrayInTheOrderItsObjectsCameWithoutDuplicates() throws {
        let ann = gardener("Ann"), bob = gardener("Bob"), cid = gardener("Cid")
        let launch = Garden(context: context)
        launch.gardeners = [cid, ann, cid]
        XCTAssertEqual(launch.gardeners, [cid, ann], "one of each, in the order given")
        launch.addToGardeners(bob)
        launch.addToGardeners(ann)
        XCTAssertEqual(launch.gardeners, [cid, ann, bob], "added at the end, once")
        try context.save()
        // Read back in another context: every object is a Gardener, typed without a copy per read.
        let other = newContext()
        let fetched = try XCTUnwrap(other.existingObject(with: launch.objectID) as? Garden)
        XCTAssertEqual(Set(fetched.gardeners.map(\.name)), ["Ann", "Bob", "Cid"])
        XCTAssertTrue(fetched.gardeners.allSatisfy { type(of: $0) == Gardener.self })
        XCTAssertEqual(Set(fetched.gardeners.map(\.objectID)), Set(fetched.objectIDs(forRelationshipNamed: "gardeners")))
    }

    func testRelationshipToAnEntityWithoutAClassHoldsManagedObjects() {
        let ann = gardener("Ann")
        let memo = context.insertNewObject(forEntityName: "Memo")
        ann.addToMemos(memo)
        XCTAssertTrue(memo.value(forKey: "gardener") as? Gardener === ann)
        XCTAssertEqual(ann.memos, [memo])
    }

    // MARK: Hand-written code

    func testHandWrittenClassOverridesHooks() {
        let garden = Garden(context: context)
        XCTAssertNotNil(garden.created)
        XCTAssertNotNil(garden.uuid)
        garden.budget = 10_000
        XCTAssertEqual(garden.value(forKey: "budget") as? Int64, 10_000)
    }

    func testHandWrittenExtensionUsesTheTypedAccessors() {
        let ann = gardener("Ann")
        ann.mentor = gardener("Bob")
        let done = chore("Done"), open = chore("Open")
        done.done = true
        ann.chores = [done, open]
        XCTAssertEqual(ann.openChores, [open])
        XCTAssertEqual(ann.nameWithMentor, "Ann (Bob)")
    }

    // MARK: Fetching

    func testFetchRequestIsTypedByTheClassAndNamesItsEntity() {
        let request = Chore.fetchRequest()
        XCTAssertEqual(request.entityName, "Chore")
        XCTAssertTrue(type(of: request) == FetchRequest<Chore>.self)
        XCTAssertEqual(Garden.fetchRequest().entityName, "Garden")
    }

    func testTypedFetchReturnsObjectsOfTheClass() throws {
        for name in ["Cid", "Ann", "Bob"] { gardener(name) }
        var request = Gardener.fetchRequest()
        request.predicate = try Predicate(format: "name != %@", "Bob")
        request.sortDescriptors = [SortDescriptor(key: "name")]
        let people: [Gardener] = try context.fetch(request)
        XCTAssertEqual(people.map(\.name), ["Ann", "Cid"])
    }

    func testParentFetchReturnsSubEntitiesAsTheirClasses() throws {
        chore("Write")
        _ = Garden(context: context)
        let plans = try context.fetch(Plan.fetchRequest())
        XCTAssertEqual(Set(plans.map { String(describing: type(of: $0)) }), ["Chore", "Garden"])
    }

    func testObjectsFetchedFromTheStoreAreFaultsOfTheGeneratedClass() throws {
        let ann = gardener("Ann")
        ann.age = 30
        ann.nicknames = ["Annie"]
        ann.chores = [chore("First"), chore("Second")]
        try context.save()

        let other = newContext()
        var request = Gardener.fetchRequest()
        request.returnsObjectsAsFaults = true
        request.includesPendingChanges = false
        let fetched = try XCTUnwrap(other.fetch(request).first)
        XCTAssertTrue(fetched.isFault)
        XCTAssertTrue(type(of: fetched) == Gardener.self)
        XCTAssertEqual(fetched.age, 30)
        XCTAssertEqual(fetched.nicknames, ["Annie"])
        XCTAssertEqual(fetched.chores.map(\.title), ["First", "Second"])
        XCTAssertTrue(fetched.chores.allSatisfy { $0.owner === fetched })
    }

    // MARK: Helpers

    private func newContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @discardableResult
    private func gardener(_ name: String) -> Gardener {
        let gardener = Gardener(context: context)
        gardener.name = name
        return gardener
    }

    @discardableResult
    private func chore(_ title: String) -> Chore {
        let chore = Chore(context: context)
        chore.title = title
        return chore
    }
}
