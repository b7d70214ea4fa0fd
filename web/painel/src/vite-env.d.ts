/// <reference types="vite/client" />
interface ImportMetaEnv {
  readonly VITE_VITRINE_URL?: string;
}
