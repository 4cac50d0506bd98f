// Biometric records as decoded from uploads: fingerprint, face, finger-vein and unified (BIODATA)
// templates, user and comparison photos, attendance photos [PUSH-v2 §6.4, §6.7–§6.8, PUSH-v3 §7.4].

interface TemplateCommon {
  readonly pin: string;
  /** base64 text as received */
  readonly template: string;
  /** false when the template is not valid base64: store it, never send it to a device [PUSH-v2 §6.4] */
  readonly usable: boolean;
  /** declared Size, when present */
  readonly size: number | null;
  /** Size differs from the base64 length: log it, do not reject [PUSH-v2 §6.4] */
  readonly sizeMismatch: boolean;
}

/** v2 `FP` / `FINGERTMP`, v3 `templatev10` [PUSH-v2 §6.4, PUSH-v3 §7.4]. */
export interface FingerprintTemplate extends TemplateCommon {
  /** finger index on the device's numbering 0–9 [COMMANDS §3.9]; a v3 `fingerid` ≥ 16 is reduced by 16 */
  readonly fingerIndex: number;
  /** 1 normal, 3 duress, 0 invalid */
  readonly valid: number | null;
  readonly duress: boolean;
  readonly uid: number | null;
}

/** v2 legacy `FACE` [PUSH-v2 §6.4]. */
export interface FaceTemplate extends TemplateCommon {
  readonly faceIndex: number | null;
  readonly valid: number | null;
}

/** v2 `FVEIN` [PUSH-v2 §6.4]. */
export interface FingerVeinTemplate extends TemplateCommon {
  readonly fingerIndex: number;
  readonly index: number | null;
  readonly valid: number | null;
}

/** Unified template `BIODATA` / `biodata` [PUSH-v2 §6.7, §9.4]. */
export interface BioTemplate {
  readonly pin: string;
  /** finger index / 0 for face / 0–1 left-right for iris and palm */
  readonly no: number;
  readonly index: number;
  readonly valid: number | null;
  readonly duress: boolean;
  /** biometric type [PUSH-v2 §9.4]: 0–9, 10 visible-light palm (vendor V4.2 revision, 2023); a higher
   *  (future) type is kept and synced as an opaque template */
  readonly type: number;
  readonly majorVer: string;
  readonly minorVer: string;
  /** 0 ZK, 1 ISO, 2 ANSI */
  readonly format: number | null;
  readonly template: string;
  readonly usable: boolean;
}

export interface UserPhoto {
  readonly pin: string;
  readonly fileName: string;
  readonly size: number | null;
  /** base64 JPEG */
  readonly content: string;
  readonly usable: boolean;
}

export interface BioPhoto extends UserPhoto {
  readonly type: number | null;
}

export type PhotoContent =
  { readonly encoding: 'binary'; readonly bytes: Uint8Array } | { readonly encoding: 'base64'; readonly text: string };

/** Attendance photo [PUSH-v2 §6.8, PUSH-v3 §7.4 ATTPHOTO]. */
export interface AttendancePhoto {
  /** `YYYYMMDDhhmmss-${pin}.jpg` after a verification, `YYYYMMDDhhmmss.jpg` after a failure */
  readonly fileName: string;
  /** user PIN taken from the file name, '' when none */
  readonly pin: string;
  /** time taken from the file name, '' when it has none */
  readonly time: string;
  readonly size: number | null;
  /** `uploadphoto` / `realupload` (v2 header), '' otherwise */
  readonly cmd: string;
  readonly content: PhotoContent;
}
