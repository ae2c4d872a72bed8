/**
 * A scanner service process for the kill -9 test: the real service (config from the environment,
 * like `node packages/scanner/dist/main.js`) with the test's credit-consuming endpoint registered
 * (scanner-charged-endpoint.ts), so the charging batch can be crashed before phase 2's scan
 * endpoints exist. Logs `scanner API listening on http://host:port/v1` on stdout when it listens.
 */

import { createScannerService } from '@chain-indexer/scanner';
import { loadScannerConfig } from '@chain-indexer/scanner/config';
import { ENDPOINTS } from '@chain-indexer/scanner/testing';
import { pino } from 'pino';
import { chargedTestEndpoint } from './scanner-charged-endpoint.js';

const config = loadScannerConfig(process.env);
const log = pino({ level: 'info' });
const service = await createScannerService({ config, log, endpoints: [...ENDPOINTS, chargedTestEndpoint] });
await service.listen();
