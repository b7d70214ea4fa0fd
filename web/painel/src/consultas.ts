/** How often the dashboard asks again (KPIs, demand, restocks): new restocks and deliveries show up without a reload. */
export const ATUALIZACAO_MS = 5000;
