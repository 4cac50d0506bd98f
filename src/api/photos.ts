/**
 * /api/users/{pin}/photo (issue #35 item 4), full scope only (a face photo terminals enrol from is
 * biometric data, like templates):
 * - PUT: a JPEG or PNG body, re-encoded (src/users/photos.ts), stored and sent to the user's terminals;
 * - GET: the stored JPEG, with its ETag (a matching If-None-Match is 304);
 * - DELETE: removes it here and on the terminals.
 */
import { Type } from 'typebox';
import { requireFull } from '../auth/authenticate.js';
import { deletePhoto, getPhoto, MAX_PHOTO_BYTES, MAX_PHOTO_SIDE, punchPhoto, putPhoto, type PhotoDeps } from '../users/photos.js';
import { Pin } from '../users/schemas.js';
import { UserPhotoView, userPhotoView } from '../views/user.js';
import { defineRoute, json, type ApiRoute } from './route.js';
import { EmptyObject } from './schemas.js';

const tags = ['users'];
const params = Type.Object({ pin: Pin });

export function photoRoutes(deps: PhotoDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'PUT',
      path: '/api/users/{pin}/photo',
      auth: 'location',
      params,
      doc: {
        summary: "Set a user's photo (full scope); it reaches the terminals that hold the user",
        description:
          `A JPEG or PNG of at most ${MAX_PHOTO_BYTES} bytes and ${MAX_PHOTO_SIDE} × ${MAX_PHOTO_SIDE} pixels, sent as the body ` +
          '(`Content-Type: image/jpeg`, `image/png` or `application/octet-stream`). It is decoded and stored re-encoded as a JPEG ' +
          '(orientation applied, no metadata kept). Terminals that enrol faces from photos receive it as `biophoto`, others that ' +
          'show photos as `userpic`; each terminal’s outcome is in its sync state. 201 for a first photo, 200 when it replaced one.',
        tags,
        requestMedia: ['image/jpeg', 'image/png', 'application/octet-stream'],
        responses: { 201: UserPhotoView, 200: UserPhotoView },
        errors: [
          'SCOPE_DENIED',
          'USER_NOT_FOUND',
          'PAYLOAD_TOO_LARGE',
          'UNSUPPORTED_MEDIA_TYPE',
          'PHOTO_INVALID',
          'QUOTA_EXCEEDED',
          'RATE_LIMITED',
        ],
      },
      handler: async ({ caller, params, req }) => {
        requireFull(caller, 'Writing photos');
        const { photo, created } = await putPhoto(deps, caller.location, params.pin, req.body, req.headers['content-type']);
        return json(created ? 201 : 200, userPhotoView(params.pin, photo));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/users/{pin}/photo',
      auth: 'location',
      params,
      doc: {
        summary: "A user's photo as a JPEG (full scope)",
        tags,
        responseMedia: 'image/jpeg',
        responses: { 200: null },
        errors: ['SCOPE_DENIED', 'USER_NOT_FOUND', 'PHOTO_NOT_FOUND'],
      },
      handler: async ({ caller, params, req }) => {
        requireFull(caller, 'Reading photos');
        const { photo, bytes } = await getPhoto(deps.store, caller.location, params.pin);
        const etag = `"${photo.sha256}"`;
        const cache = { etag, 'cache-control': 'private, no-cache' };
        if (req.headers['if-none-match'] === etag) return { status: 304, headers: cache };
        return { status: 200, headers: { ...cache, 'content-type': 'image/jpeg' }, body: bytes };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/attendance/{attendance_id}/photo',
      auth: 'location',
      params: Type.Object({ attendance_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
      doc: {
        summary: "A punch's photo as the terminal took it, a JPEG (full scope)",
        description:
          'Kept only while the location has `attendance_photos` on, for `attendance_photo_retention_days`; a photo that arrives ' +
          'after its punch is announced as `attendance.photo`.',
        tags: ['attendance'],
        responseMedia: 'image/jpeg',
        responses: { 200: null },
        errors: ['SCOPE_DENIED', 'ATTENDANCE_NOT_FOUND', 'PHOTO_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller, 'Reading photos');
        const bytes = await punchPhoto(deps.store, caller.location, params.attendance_id);
        return {
          status: 200,
          headers: { 'content-type': 'image/jpeg', 'cache-control': 'private, max-age=86400, immutable' },
          body: bytes,
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/users/{pin}/photo',
      auth: 'location',
      params,
      doc: {
        summary: "Delete a user's photo (full scope), here and on the terminals",
        tags,
        responses: { 200: EmptyObject },
        errors: ['SCOPE_DENIED', 'USER_NOT_FOUND', 'PHOTO_NOT_FOUND'],
      },
      handler: async ({ caller, params }) => {
        requireFull(caller, 'Deleting photos');
        await deletePhoto(deps, caller.location, params.pin);
        return json(200, {});
      },
    }),
  ];
}
