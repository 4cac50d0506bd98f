/** The templates port: biometric templates of a location's users, as the devices sent them. */
import type { Iso } from './records.js';

export type BioType = 'fingerprint' | 'face' | 'palm' | 'other';

export interface Template {
  readonly id: number;
  readonly location_id: number;
  readonly user_pin: number;
  readonly bio_type: BioType;
  /** Biometric type index on the wire [COMMANDS §3.9]: 1 fingerprint, 2/9 face, 6/8 palm, … */
  readonly type_index: number;
  /** Finger number (0–9) or 0 for face/palm. */
  readonly finger_id: number;
  /** Index of the template within (type, finger) for multi-template algorithms. */
  readonly template_index: number;
  readonly valid: number;
  readonly duress: boolean;
  /** Algorithm version; for legacy tables the device's FPVersion/FaceVersion. */
  readonly major_ver: number;
  readonly minor_ver: number;
  readonly format: number;
  /** Which table it came in: FINGERTMP/templatev10 ('legacy') or BIODATA ('biodata'). */
  readonly source_format: 'legacy' | 'biodata';
  /** Base64 template text as the device sent it. Never logged, never returned by the API. */
  readonly data: string;
  readonly size: number;
  readonly source_sn: string | null;
  readonly created_at: Iso;
  readonly updated_at: Iso | null;
}

export type TemplateInput = Omit<Template, 'id' | 'location_id' | 'created_at' | 'updated_at'>;

export interface TemplatesPort {
  /** Insert or replace the template with the same (pin, type_index, finger_id, template_index). */
  upsert(locationId: number, input: TemplateInput, now: Iso): Promise<{ template: Template; created: boolean; changed: boolean }>;
  listForUser(locationId: number, pin: number): Promise<readonly Template[]>;
  listForUsers(locationId: number, pins: readonly number[]): Promise<readonly Template[]>;
  /** Pins (of the given ones) that have at least one template. */
  pinsWithTemplates(locationId: number, pins: readonly number[]): Promise<ReadonlySet<number>>;
  deleteForUser(locationId: number, pin: number): Promise<number>;
  /** Deletes every template of the user at (type_index, finger_id), whatever its template_index; returns how many. */
  deleteSlot(locationId: number, pin: number, typeIndex: number, fingerId: number): Promise<number>;
}
