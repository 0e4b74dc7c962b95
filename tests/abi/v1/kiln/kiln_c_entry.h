/**
 * @file kiln_c_entry.h
 * The entry point of Kiln's C ABI: KILN_API_VERSION, the KilnApiBase table and KilnGetApiBase,
 * the library's one exported symbol, with the macros the tables are declared with. Included by
 * kiln/kiln_c_api.h, which declares the KilnApi table itself; include that one.
 *
 * The header is C99; it is also valid C++.
 */
#ifndef KILN_KILN_C_ENTRY_H_
#define KILN_KILN_C_ENTRY_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of the KilnApi table this header describes. Pass it to KilnApiBase::GetApi. */
#define KILN_API_VERSION 1

#ifndef KILN_API_CALL
/** Calling convention of every entry (empty on the platforms Kiln supports). */
#define KILN_API_CALL
#endif

/**
 * Declares one slot of the API tables: a pointer, named @p name, to a function taking @p params
 * and returning @p ret. (Written as a macro so that Doxygen documents each slot as a function.)
 */
#define KILN_SLOT(ret, name, params) ret(KILN_API_CALL* name) params /* NOLINT: types */

/**
 * Declares the type of one slot of the KilnApi table: Kiln<name>Fn, a pointer to a function
 * taking @p params and returning @p ret (the family headers, kiln/c/, declare and document one per
 * slot; Doxygen documents each as a function).
 */
#define KILN_ENTRY_TYPE(ret, name, params) \
  typedef ret(KILN_API_CALL* Kiln##name##Fn) params /* NOLINT: types */

#if defined(_WIN32)
/** Marks KilnGetApiBase as the library's one exported symbol. */
#define KILN_EXPORT __declspec(dllexport)
#else
/** Marks KilnGetApiBase as the library's one exported symbol. */
#define KILN_EXPORT __attribute__((visibility("default")))
#endif

/** The table of every Kiln entry (declared in kiln/kiln_c_api.h). */
typedef struct KilnApi KilnApi;

/** The entry point's table: never changes. */
typedef struct KilnApiBase {
  /**
   * The API table of a given version.
   *
   * @param[in] version  The KILN_API_VERSION the caller was built with.
   * @return The table, owned by Kiln and valid for the life of the process; NULL when the library
   *         does not provide that version (it then logs why).
   */
  KILN_SLOT(const KilnApi*, GetApi, (uint32_t version));

  /**
   * The library's version, e.g. "1.0.0".
   *
   * @return A static UTF-8 string.
   */
  KILN_SLOT(const char*, GetVersionString, (void));
} KilnApiBase;

/**
 * The one exported symbol of libkiln: the entry to every other function.
 *
 * @return A static table, valid for the life of the process.
 */
KILN_EXPORT const KilnApiBase* KILN_API_CALL KilnGetApiBase(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_KILN_C_ENTRY_H_
