import { describe, expect, it } from 'vitest';
import { NON_RETRY_CAUSE_CODES } from '../../src/contracts/error-causes.ts';
import { ERROR_CODES, RETRY_SAFE_CODES } from '../../src/contracts/errors.ts';
import { isSqlstate, nonRetryCodeOf, sqlstateCause } from './postgres-sqlstate.ts';

describe('SQLSTATE causes', () => {
  it.each([
    ['28P01', 'authentication', ERROR_CODES.AUTHENTICATION_FAILED], // invalid_password
    ['28000', 'authentication', ERROR_CODES.AUTHENTICATION_FAILED], // invalid_authorization_specification
    ['42501', 'privilege', ERROR_CODES.PERMISSION_DENIED],
    ['3D000', 'missing-object', ERROR_CODES.OBJECT_NOT_FOUND], // database
    ['3F000', 'missing-object', ERROR_CODES.OBJECT_NOT_FOUND], // schema
    ['42P01', 'missing-object', ERROR_CODES.OBJECT_NOT_FOUND], // table
    ['42703', 'missing-object', ERROR_CODES.OBJECT_NOT_FOUND], // column
    ['22P02', 'data', ERROR_CODES.DATA_REJECTED], // invalid_text_representation
    ['22008', 'data', ERROR_CODES.DATA_REJECTED], // datetime_field_overflow
    ['23502', 'data', ERROR_CODES.DATA_REJECTED], // not_null_violation
    ['23505', 'data', ERROR_CODES.DATA_REJECTED], // unique_violation
    ['42804', 'data', ERROR_CODES.DATA_REJECTED], // datatype_mismatch
    ['23514', 'data', ERROR_CODES.DATA_REJECTED], // check_violation, also "no partition of relation"
    ['0A000', 'privilege', ERROR_CODES.PERMISSION_DENIED], // COPY FROM not supported with row-level security
    ['44000', 'data', ERROR_CODES.DATA_REJECTED], // with_check_option_violation (a view's or a policy's)
    ['P0001', 'data', ERROR_CODES.DATA_REJECTED], // raise_exception: a trigger refused the rows
    ['21000', 'data', ERROR_CODES.DATA_REJECTED], // cardinality_violation
    ['27000', 'data', ERROR_CODES.DATA_REJECTED], // triggered_data_change_violation
    ['428C9', 'data', ERROR_CODES.DATA_REJECTED], // generated_always: a column the table computes
    ['39P01', 'data', ERROR_CODES.DATA_REJECTED], // trigger_protocol_violated
  ])('%s is %s → %s', (state, cause, code) => {
    expect(sqlstateCause(state)).toBe(cause);
    expect(nonRetryCodeOf(state)).toBe(code);
    expect(NON_RETRY_CAUSE_CODES.has(code)).toBe(true);
    expect(RETRY_SAFE_CODES.has(code)).toBe(false);
  });

  it.each([
    ['08006', 'transient'], // connection_failure
    ['40001', 'transient'], // serialization_failure
    ['40P01', 'transient'], // deadlock_detected
    ['57014', 'transient'], // query_canceled (statement_timeout)
    ['57P01', 'transient'], // admin_shutdown
    ['53300', 'transient'], // too_many_connections
    ['55P03', 'transient'], // lock_not_available (lock_timeout)
    ['42601', 'other'], // syntax_error: our bug, not the user's input
    ['XX000', 'other'],
  ])('%s is %s and keeps the caller’s retry code', (state, cause) => {
    expect(sqlstateCause(state)).toBe(cause);
    expect(nonRetryCodeOf(state)).toBeNull();
  });

  it('recognises only five-character codes (a Node errno is not a SQLSTATE)', () => {
    expect(isSqlstate('42501')).toBe(true);
    expect(isSqlstate('ECONNREFUSED')).toBe(false);
    expect(isSqlstate('4250')).toBe(false);
    expect(isSqlstate(42501)).toBe(false);
  });
});
