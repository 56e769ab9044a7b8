export {
  type EncryptedExport,
  type EncryptForRecipientOptions,
  EXPORT_HPKE_INFO,
  type ExportScheme,
  encryptForRecipient,
} from './encrypt-for-recipient.js';
