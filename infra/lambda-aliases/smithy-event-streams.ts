/**
 * Stands in for `@smithy/core/event-streams` in Lambda bundles (`LAMBDA_ALIASES` of
 * infra/bundling.ts). Event streams carry the requests or responses of a few operations (S3
 * SelectObjectContent, streaming APIs of other services); no operation this service calls has one. The real module still lands in every bundle (~15 KB with the codec): the SDK's protocol
 * layer loads it with a dynamic import that esbuild inlines, and the S3 client wires a marshaller
 * at construction. The protocol layer asks for it only when an operation's schema has an event
 * stream member, so here the marshaller and the serde fail loudly if that ever happens instead of
 * parsing anything. Drop the alias before calling such an operation (docs/operations.md#bundles).
 */

function unavailable(): never {
  throw new Error('Event streams are not bundled into Lambda functions (infra/bundling.ts LAMBDA_ALIASES); no operation of this service uses one.');
}

class UnavailableEventStreamMarshaller {
  deserialize(): never {
    return unavailable();
  }

  serialize(): never {
    return unavailable();
  }
}

/** The S3 client's runtime config calls it once per client, at construction: it must not throw. */
export const eventStreamSerdeProvider = (): UnavailableEventStreamMarshaller => new UnavailableEventStreamMarshaller();

/** Same as the real resolver: the S3 client runs it at construction. */
export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (input: T) => unknown }>(
  input: T,
): T & { eventStreamMarshaller: unknown } => Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });

/** Built by the protocol layer only to (de)serialize an event stream member. */
export class EventStreamSerde {
  constructor() {
    unavailable();
  }
}
