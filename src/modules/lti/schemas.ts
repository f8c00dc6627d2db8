import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../../platform/http/schemas.js';

const Url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

export const PlatformInput = Type.Object(
  {
    issuer: Url("The platform's issuer (the id_token's `iss`), e.g. https://canvas.instructure.com"),
    clientId: Type.String({ minLength: 1, maxLength: 255, description: 'The client id the platform gave Assay (the id_token\'s `aud`)' }),
    deploymentIds: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      minItems: 1,
      maxItems: 100,
      description: 'The deployment ids allowed to launch; a launch from any other is refused',
    }),
    authLoginUrl: Url("The platform's OIDC authorisation endpoint, where /lti/login sends the browser"),
    authTokenUrl: Url("The platform's OAuth2 token endpoint (Assignment and Grade Services)"),
    jwksUrl: Url("The platform's public key set, against which every id_token is verified"),
  },
  { additionalProperties: false, title: 'LtiPlatformInput' },
);
export type PlatformInput = Static<typeof PlatformInput>;

export const PlatformPatch = Type.Object(
  {
    deploymentIds: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 100, description: 'The deployment ids allowed to launch, replacing the list' }),
  },
  { additionalProperties: false, title: 'LtiPlatformPatch' },
);

export const ToolUrls = Type.Object(
  {
    loginUrl: Type.String({ description: 'OIDC login initiation URL (Canvas: OpenID Connect Initiation Url; Moodle: Initiate login URL)' }),
    launchUrl: Type.String({ description: 'Redirect / target link URI (Canvas: Target Link URI and Redirect URIs; Moodle: Tool URL and Redirection URI(s))' }),
    jwksUrl: Type.String({ description: "The tool's public key set (Canvas: Public JWK URL; Moodle: Public keyset URL)" }),
    deepLinkingUrl: Type.String({ description: 'Deep-linking launch URL (Canvas: the Link Selection placement; Moodle: Content Selection URL)' }),
  },
  { title: 'LtiToolUrls' },
);

export const PlatformView = Type.Object(
  {
    ltiPlatformId: Type.String(),
    institutionId: Type.String(),
    issuer: Type.String(),
    clientId: Type.String(),
    deploymentIds: Type.Array(Type.String()),
    authLoginUrl: Type.String(),
    authTokenUrl: Type.String(),
    jwksUrl: Type.String(),
    createdAt: Timestamp,
    tool: ToolUrls,
  },
  { title: 'LtiPlatform' },
);

export const InstitutionParams = Type.Object({ institutionId: Type.String({ maxLength: 64 }) });
export const PlatformParams = Type.Object({ institutionId: Type.String({ maxLength: 64 }), ltiPlatformId: Type.String({ maxLength: 64 }) });

/** Storage frame names a platform may give (lti_storage_target, platform-storage.ts): `_parent`, or a plain frame name. */
const STORAGE_TARGET_PATTERN = '^(_parent|[A-Za-z0-9_-]{1,64})$';

/** /lti/login: the platform's third-party login initiation, as query (GET) or form (POST). */
export const LoginRequest = Type.Object(
  {
    iss: Type.String({ minLength: 1, maxLength: 2048 }),
    login_hint: Type.String({ minLength: 1, maxLength: 4096 }),
    target_link_uri: Type.String({ minLength: 1, maxLength: 2048 }),
    lti_message_hint: Type.Optional(Type.String({ maxLength: 4096 })),
    client_id: Type.Optional(Type.String({ maxLength: 255 })),
    lti_deployment_id: Type.Optional(Type.String({ maxLength: 255 })),
    /** LTI Client Side postMessages: the platform's storage frame (platform-storage.ts). */
    lti_storage_target: Type.Optional(Type.String({ pattern: STORAGE_TARGET_PATTERN })),
  },
  { additionalProperties: true },
);
export type LoginRequest = Static<typeof LoginRequest>;

export const LaunchForm = Type.Object(
  {
    id_token: Type.Optional(Type.String({ maxLength: 65_536 })),
    state: Type.Optional(Type.String({ maxLength: 256 })),
    /** The binding the tool's launch page read from the platform's storage (platform-storage.ts). */
    browser_binding: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: true },
);

export const DeepLinkChoice = Type.Object(
  {
    picker_token: Type.String({ minLength: 1, maxLength: 128 }),
    testId: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { additionalProperties: false },
);

export const Html = Type.String({ description: 'An HTML page' });
