// The rollbridge module's own declarations for the type check (issue 15 item 7):
// its settings, flags, hooks and the optional APIs it feature-detects (Dice So
// Nice's game.dice3d, v13's User#query / CONFIG.queries on v12's types).
// Used by tsconfig.v12.json and tsconfig.v13.json; see docs/foundry.md "Type check".

declare global {
  interface SettingConfig {
    "rollbridge.serverUrl": string;
    "rollbridge.token": string;
    "rollbridge.systemMapping": string;
    "rollbridge.serverDice": boolean;
    "rollbridge.cursor": { table?: string; epoch?: string; seq?: number };
    "rollbridge.combatTracker": boolean;
    "rollbridge.roundWait": number;
    "rollbridge.combat": { table?: string; id?: string; offset?: number };
    "rollbridge.outcomes": { tables?: { table: string | null; settled: Record<string, { outcome: string; reason?: string }> }[] };
    "rollbridge.mapped": { marks?: { table: string; key: string; mapping: string; actorId: string }[] };
  }

  interface FlagConfig {
    ChatMessage: { rollbridge: Record<string, any> };
    Actor: { rollbridge: Record<string, any> };
  }

  interface HookConfig {
    "rollbridge.status": (status: string, detail?: unknown) => void;
    "rollbridge.event": (event: Record<string, any>) => void;
  }

  /** Dice So Nice (optional module), feature-detected at run time. */
  interface DiceSoNice {
    showForRoll(roll: unknown, user?: unknown, synchronize?: boolean, ...rest: unknown[]): Promise<boolean>;
    [key: string]: unknown;
  }

  interface Game {
    dice3d?: DiceSoNice;
  }

  // v13's queries (absent on v12; the module checks before calling).
  interface User {
    query?(name: string, data: unknown, options?: { timeout?: number }): Promise<unknown>;
  }
}

declare module "fvtt-types/configuration" {
  interface AssumeHookRan {
    ready: never;
  }
}

export {};
