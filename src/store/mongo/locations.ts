/** Locations and tokens: small, unsharded collections looked up by id or token hash. */
import { PHOTO_DEFAULTS, TIME_CARD_DEFAULTS, type Location, type LocationsPort, type Token, type TokensPort } from '../ports/index.js';
import type { Ids } from './ids.js';
import type { LocationCounts } from './location-counts.js';
import { isDuplicateKey, maybe } from './util.js';
import type { Collections, LocationDoc, TokenDoc } from './schema.js';

const toLocation = ({
  _id,
  require_comm_key,
  attendance_debounce_s,
  day_start_hour,
  attendance_photos,
  attendance_photo_retention_days,
  scenario,
  ...rest
}: LocationDoc): Location => ({
  id: _id,
  ...rest,
  require_comm_key: require_comm_key ?? false,
  attendance_debounce_s: attendance_debounce_s ?? TIME_CARD_DEFAULTS.attendance_debounce_s,
  day_start_hour: day_start_hour ?? TIME_CARD_DEFAULTS.day_start_hour,
  attendance_photos: attendance_photos ?? PHOTO_DEFAULTS.attendance_photos,
  attendance_photo_retention_days: attendance_photo_retention_days ?? PHOTO_DEFAULTS.attendance_photo_retention_days,
  scenario: scenario ?? null,
});
const toToken = ({ _id, ...rest }: TokenDoc): Token => ({ id: _id, ...rest });

export function mongoLocations(c: Collections, ids: Ids, counts: LocationCounts): LocationsPort {
  return {
    async claimBootstrap(node, now) {
      // `_id` is unique on every server: of nodes inserting at once, exactly one succeeds.
      try {
        await c.markers.insertOne({ _id: 'bootstrap', node, created_at: now });
        return true;
      } catch (e) {
        if (isDuplicateKey(e)) return false;
        throw e;
      }
    },
    async create(input, now) {
      const doc: LocationDoc = {
        _id: await ids('locations'),
        name: input.name,
        timezone: input.timezone,
        is_active: true,
        require_comm_key: input.require_comm_key ?? false,
        ...TIME_CARD_DEFAULTS,
        created_at: now,
        updated_at: null,
      };
      await c.locations.insertOne(doc);
      await counts.seed(doc._id);
      return toLocation(doc);
    },
    async get(id) {
      const doc = await c.locations.findOne({ _id: id });
      return maybe(doc, toLocation);
    },
    async list() {
      return (await c.locations.find({}).sort({ _id: 1 }).toArray()).map(toLocation);
    },
    async count() {
      return c.locations.countDocuments({});
    },
    counts: (id) => counts.read(id),
    reconcileCounts: () => counts.reconcile(),
    async update(id, patch, now) {
      const set: Partial<LocationDoc> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.timezone !== undefined) set.timezone = patch.timezone;
      if (patch.is_active !== undefined) set.is_active = patch.is_active;
      if (patch.require_comm_key !== undefined) set.require_comm_key = patch.require_comm_key;
      if (patch.attendance_debounce_s !== undefined) set.attendance_debounce_s = patch.attendance_debounce_s;
      if (patch.day_start_hour !== undefined) set.day_start_hour = patch.day_start_hour;
      if (patch.attendance_photos !== undefined) set.attendance_photos = patch.attendance_photos;
      if (patch.attendance_photo_retention_days !== undefined) set.attendance_photo_retention_days = patch.attendance_photo_retention_days;
      if (Object.keys(set).length === 0) return this.get(id);
      const doc = await c.locations.findOneAndUpdate({ _id: id }, { $set: { ...set, updated_at: now } }, { returnDocument: 'after' });
      return maybe(doc, toLocation);
    },
    async setScenario(id, expected, scenario, now) {
      // Compare-and-set on the name in force (absent on older documents: none).
      const current = expected === null ? { $in: [null] } : expected;
      const doc = await c.locations.findOneAndUpdate(
        { _id: id, 'scenario.name': current },
        { $set: { scenario, updated_at: now } },
        { returnDocument: 'after' },
      );
      return maybe(doc, toLocation);
    },
  };
}

export function mongoTokens(c: Collections, ids: Ids): TokensPort {
  return {
    async create(input, now) {
      // The unique index on `hash` refuses a second token with the same hash (the id is then a gap).
      const doc: TokenDoc = {
        _id: await ids('tokens'),
        location_id: input.location_id,
        hash: input.hash,
        scope: input.scope,
        label: input.label,
        expires_at: input.expires_at,
        revoked_at: null,
        created_at: now,
      };
      await c.tokens.insertOne(doc);
      return toToken(doc);
    },
    async findByHash(hash) {
      const doc = await c.tokens.findOne({ hash });
      return maybe(doc, toToken);
    },
    async get(id) {
      const doc = await c.tokens.findOne({ _id: id });
      return maybe(doc, toToken);
    },
    async list(locationId) {
      const filter = locationId === undefined ? {} : { location_id: locationId };
      return (await c.tokens.find(filter).sort({ _id: 1 }).toArray()).map(toToken);
    },
    async revoke(id, now) {
      // Only the first revoke writes (filter on revoked_at null), so the first time is kept.
      await c.tokens.updateOne({ _id: id, revoked_at: null }, { $set: { revoked_at: now } });
      return this.get(id);
    },
  };
}
