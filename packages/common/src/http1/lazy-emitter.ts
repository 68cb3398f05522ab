import { EventEmitter } from "node:events";

/**
 * A base class that is an EventEmitter (instanceof, on/once/off/emit, listenerCount, ...) without running
 * EventEmitter's constructor: node's emitter methods create the listener table with the first listener and read a
 * missing one as "no listeners", as for the objects of util.inherits-style classes that never call it. The raw
 * ingress makes a request and a response per request, and most never get a listener: an emitter constructed for each
 * (a prototype-less table, the constructor's checks) cost about 0.03 µs a piece in a loop, and garbage per post.
 */
function LazyEmitterBase(): void {}
LazyEmitterBase.prototype = Object.create(EventEmitter.prototype, {
  constructor: { value: LazyEmitterBase, writable: true, configurable: true },
});
// Static members (EventEmitter.once, defaultMaxListeners, ...) as a subclass of EventEmitter has them.
Object.setPrototypeOf(LazyEmitterBase, EventEmitter);

export const LazyEmitter = LazyEmitterBase as unknown as typeof EventEmitter;
