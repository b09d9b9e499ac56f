#pragma once
// btAdaptiveGridBroadphase: agrid as a Bullet broadphase, a drop-in for btDbvtBroadphase.
//
// This header compiles as C++11, 14, 17 and 20, as Bullet's own headers do: the library behind
// it is C++20 and compiled already, and this class only holds a pointer to it.

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include <memory>

#include "agrid/bullet/btAdaptiveGridBroadphaseStats.h"

namespace agrid {
class Broadphase;  // <agrid/broadphase.h> (C++20)
struct Config;     // <agrid/config.h> (C++11 and later)
}  // namespace agrid

/// Receives a message of a btAdaptiveGridBroadphase (a misuse of a call, or a warning) with the
/// context pointer given beside it: a function, or a lambda without captures.
typedef void (*btAdaptiveGridMessageHandler)(const char* message, void* context);

/// Bullet's btBroadphaseInterface on agrid::Broadphase. Replace `new btDbvtBroadphase()` with
/// `new btAdaptiveGridBroadphase()`: the world's narrowphase, solver and queries stay Bullet's.
///
/// * Pairs are exact: after calculateOverlappingPairs the pair cache holds every pair of stored
///   AABBs that overlap (closed boxes) and that the live filters accept (groups and masks as
///   they are on the proxies now, or the cache's btOverlapFilterCallback), and nothing else.
///   setFatPairMargin makes them pairs of fat boxes instead, as btDbvtBroadphase's are.
///   Only pairs that began are added and only pairs that ended are removed, in ascending order
///   of unique ids, so persistent pairs keep their algorithms and manifolds.
/// * Pairs that others add to or remove from the cache are repaired by the next
///   calculateOverlappingPairs.
/// * The pair cache the adapter owns is Bullet's btHashedOverlappingPairCache that also lists
///   each proxy's pairs: removing a body (cleanProxyFromPairs, then destroyProxy's
///   removeOverlappingPairsContainingProxy) costs that body's pairs, not a walk over every pair.
/// * Filters are read by setAabb and when a pair begins; a step in which some proxies got no
///   setAabb also compares those whose box overlaps another's: a static level whose objects are
///   apart costs nothing a step with setForceUpdateAllAabbs(false), one whose objects touch a
///   look at each of them (see setWatchFiltersAtRest).
/// * Memory follows the world: proxy blocks, per-handle arrays and agrid's structures shrink
///   at the next calculateOverlappingPairs once far below their capacity (docs/broadphase.md).
/// * Misuse: destroyProxy or setAabb of a null proxy or one already destroyed (until the next
///   calculateOverlappingPairs, after which its memory may hold a new proxy, as with any
///   allocator; btDbvtBroadphase's behaviour is then undefined too), and getAabb of a null proxy,
///   go to the misuse handler (setMisuseHandler): by default std::invalid_argument is thrown; a
///   program built without exceptions sets a handler, and the call does nothing once it returns.
/// * The first AABB the broadphase holds with a NaN or min > max (a shape's bug: it pairs with
///   nothing) is reported once, to the warning handler (setWarningHandler; by default printed
///   with printf, as Bullet's own warnings are); agrid/bullet/world.h sends it to the world's
///   debug drawer, where btCollisionWorld reports its "Overflow in AABB".
/// * setAabb stores and costs O(1); unchanged AABBs (static and sleeping objects every step)
///   cost a comparison. Objects that stop moving rest in a tree changed one leaf at a time,
///   with their candidate pairs kept: a step costs what changed.
/// * rayTest and aabbTest never miss: they walk the resting tree and the moving set's grid
///   (and test objects changed since the last calculateOverlappingPairs directly). aabbTest
///   offers exactly the overlapping stored AABBs, so btCollisionWorld::contactTest reports the
///   same points at distance <= 0 as with btDbvtBroadphase, every one; dbvt's fattened leaves
///   offer more objects, for which it also reports points at a positive distance.
/// * "Exact" and "never miss" are relative to the stored AABBs, those of the last setAabb. After
///   stepSimulation they are the boxes from before the step's integration, as with any Bullet
///   broadphase: the world's updateAabbs runs at the start of the next step. To query bodies
///   where they are now, call world->updateAabbs() first.
/// * rayTest and aabbTest are safe from several threads at once while no step runs: they only
///   read what the last calculateOverlappingPairs kept. (btDbvtBroadphase is not, in Debian's
///   Bullet, built without BT_THREADSAFE: its tree walks share one stack; in a trial,
///   2,000 rays a step from 2 and 4 threads got 57-61% wrong results with dbvt, none with agrid.)
/// * AABBs with a NaN or min > max pair with nothing (counted in lastStepStats().m_invalidObjects);
///   static planes (±1e18) and other huge objects are handled as oversize boxes.
/// * With double-precision Bullet (BT_USE_DOUBLE_PRECISION) AABBs are rounded outward to floats:
///   pairs and hits are exact on the rounded boxes, so none is lost, and a pair whose double
///   AABBs are apart by less than a float step may be added (docs/broadphase.md).
/// * Large moving sets use all threads of the caller's oneTBB task arena; the result does not
///   depend on the number of threads (tests/determinism). To choose the number, step the world
///   inside an arena, or cap every arena of the process:
///
///       tbb::task_arena arena(2);                                // <tbb/task_arena.h>
///       arena.execute([&] { world->stepSimulation(dt); });
///       // or, for the whole process (<tbb/global_control.h>), while `cap` lives:
///       tbb::global_control cap(tbb::global_control::max_allowed_parallelism, 2);
///
/// * lastStepStats() tells what the last step cost and changed: the time of
///   calculateOverlappingPairs, the objects given setAabb before it (and the calls' time, when
///   setTimeSetAabbCalls(true)), and the pairs begun, ended and held: a game's own broadphase
///   cost per step, without a profiler. It also tells what the step left: the objects, those
///   with an invalid AABB, the moving and resting ones, and the bytes the broadphase holds. It
///   is C++11, as this header: a Bullet program needs nothing else (broadphase() needs C++20).
///   agrid/bullet/world.h reaches it, and this class, from a btCollisionWorld without a cast.
class btAdaptiveGridBroadphase : public btBroadphaseInterface {
 public:
  /// Uses `pairCache` if given (not owned), else owns a btHashedOverlappingPairCache. A
  /// btNullPairCache makes a queries-only broadphase: no pairs are computed, rayTest and
  /// aabbTest work. Other caches with deferred removal (btSortedOverlappingPairCache) are
  /// refused with std::invalid_argument naming them.
  explicit btAdaptiveGridBroadphase(btOverlappingPairCache* pairCache = nullptr);
  /// As above, tuned by `config` (<agrid/config.h>); an unusable config throws
  /// std::invalid_argument.
  btAdaptiveGridBroadphase(btOverlappingPairCache* pairCache, const agrid::Config& config);
  /// Frees the proxies, and the pair cache if the adapter owns it.
  ~btAdaptiveGridBroadphase() override;

  /// Adds an object with this AABB and filter; its pairs begin at the next
  /// calculateOverlappingPairs. Unique ids count from 1, never reused; shapeType is not used.
  btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int shapeType, void* userPtr,
                                 int collisionFilterGroup, int collisionFilterMask, btDispatcher* dispatcher) override;
  /// Removes the object and, at once, its pairs from the pair cache (O(its pairs) with the
  /// adapter's cache). A null proxy or one destroyed already is a misuse (setMisuseHandler).
  void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override;
  /// Stores the object's AABB, O(1); its pairs change at the next calculateOverlappingPairs.
  /// A null proxy or one destroyed already is a misuse (setMisuseHandler).
  void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax,
               btDispatcher* dispatcher) override;
  /// The AABB last stored by createProxy or setAabb. A null proxy is a misuse (setMisuseHandler),
  /// which leaves aabbMin and aabbMax as they were.
  void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const override;
  /// Calls rayCallback.process with every proxy whose stored AABB, grown to [min - aabbMax,
  /// max - aabbMin], the segment meets (as agrid::hits decides); a shorter m_lambda_max ends it.
  void rayTest(const btVector3& rayFrom, const btVector3& rayTo, btBroadphaseRayCallback& rayCallback,
               const btVector3& aabbMin = btVector3(0, 0, 0), const btVector3& aabbMax = btVector3(0, 0, 0)) override;
  /// Calls callback.process with every proxy whose stored AABB overlaps [aabbMin, aabbMax].
  void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) override;
  /// Brings the pair cache up to date: adds the pairs that began and removes those that ended.
  void calculateOverlappingPairs(btDispatcher* dispatcher) override;
  /// The pair cache given to the constructor, or the one the adapter owns.
  btOverlappingPairCache* getOverlappingPairCache() override;
  /// The pair cache given to the constructor, or the one the adapter owns.
  const btOverlappingPairCache* getOverlappingPairCache() const override;
  /// The bounds of all valid stored AABBs; a zero box when there are none.
  void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const override;
  /// Does nothing: memory already follows the world at every calculateOverlappingPairs.
  void resetPool(btDispatcher* dispatcher) override;
  /// Prints the counts of lastStepStats() (objects, moving, resting, invalid, pairs, bytes) to stdout.
  void printStats() override;

  /// The agrid broadphase behind the adapter, for C++20 code (queries in handles, agrid's own
  /// stats; <agrid/broadphase.h>). Bullet programs of any standard read lastStepStats() instead.
  const agrid::Broadphase& broadphase() const;

  /// What the last calculateOverlappingPairs cost and changed, the objects given setAabb before
  /// it, and the objects, invalid AABBs and bytes it left.
  const btAdaptiveGridBroadphaseStats& lastStepStats() const;
  /// Times every setAabb call (off by default: two clock reads cost more than an unchanged AABB's
  /// setAabb); calls are counted either way.
  void setTimeSetAabbCalls(bool on);
  /// Whether setAabb calls are timed.
  bool getTimeSetAabbCalls() const;

  /// Whether a step in which some proxies got no setAabb (setForceUpdateAllAabbs(false), sleeping
  /// or hand-made proxies) looks at the filters of those that can gain or lose a pair by a filter
  /// change: those whose box overlaps another's. On (the default): every filter change is seen
  /// at the next step; a level whose statics touch one another costs a look at each of them a
  /// step. Off: a filter is read by setAabb and when a pair of its proxy begins; rewritten in
  /// place on a proxy that gets no setAabb, it is seen at its next setAabb (as with
  /// btDbvtBroadphase, which reads filters only when it adds a pair); a level costs nothing a
  /// step.
  void setWatchFiltersAtRest(bool on);
  /// Whether filter changes on objects at rest are looked for every step.
  bool getWatchFiltersAtRest() const;

  /// 0 (the default): the pair cache holds exact pairs. Above 0: it holds pairs of fat boxes, as
  /// btDbvtBroadphase's does (its margin is 0.05): each proxy's AABB is held grown by `margin` on
  /// every side, and held anew only once the AABB leaves that box; a pair begins when two fat
  /// boxes meet and ends when they part. A body trembling inside its fat box (a settling stack)
  /// then costs setAabb a containment test and the step nothing, and its pairs neither end nor
  /// begin; the narrowphase is given pairs whose AABBs need not touch. rayTest and aabbTest stay
  /// exact on the stored AABBs either way. Takes effect at the next calculateOverlappingPairs.
  /// A negative or non-finite margin is a misuse (setMisuseHandler). Measured both ways on every
  /// benchmark scene in docs/benchmarks.md.
  void setFatPairMargin(btScalar margin);
  /// The fat pairs' margin (as a float, rounded up), or 0 for exact pairs.
  btScalar getFatPairMargin() const;

  /// Sends every later misuse of this broadphase's calls (a null or destroyed proxy) to
  /// handler(message, context); the call does nothing once the handler returns. A null handler,
  /// the default, throws std::invalid_argument with the message. (The constructors throw still:
  /// check a config with agrid::Config::problem() first where exceptions are off.)
  void setMisuseHandler(btAdaptiveGridMessageHandler handler, void* context = nullptr);
  /// Sends this broadphase's warnings to handler(message, context): the first AABB it holds with
  /// a NaN or min > max, once in its life (the others are counted in lastStepStats()). A null
  /// handler, the default, prints them with printf, as Bullet prints its own.
  void setWarningHandler(btAdaptiveGridMessageHandler handler, void* context = nullptr);

 private:
  /// The implementation, defined in the library.
  class Impl;
  btAdaptiveGridBroadphase(const btAdaptiveGridBroadphase&) = delete;
  btAdaptiveGridBroadphase& operator=(const btAdaptiveGridBroadphase&) = delete;

  std::unique_ptr<Impl> m_impl;  ///< Every call goes to it.
};
