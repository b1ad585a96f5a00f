export { runExport, type ExportOptions, type ExportReport } from './runExport.js';
export { lastExport, type LastExport } from './exportRuns.js';
export { EXPORT_TABLES, isExportTable, type ExportTable } from './schema.js';
export type { Manifest, ManifestFile, ManifestColumn } from './manifest.js';
export { lastPublication, type LastPublication } from './publications.js';
export { parseBucketPlace, type BucketPlace } from '../bucket/place.js';
