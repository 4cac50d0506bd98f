/** Schema pieces every public view shares (SERVICE-SPEC "Resources and their fields"). */
import { Type, type TSchema } from 'typebox';
import type { Location } from '../store/ports/index.js';

export const IsoDateTime = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, milliseconds' });
export const Nullable = <T extends TSchema>(s: T, options: { description?: string } = {}) => Type.Union([s, Type.Null()], options);

/** A record's location, by id and name. */
export const LocationBasic = Type.Object({ id: Type.Integer(), name: Type.String() }, { title: 'LocationBasic' });

export const locationBasic = (location: Location) => ({ id: location.id, name: location.name });
