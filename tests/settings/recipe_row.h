/*
 * recipe_row.h — step 1 of docs/design.md's recipe "Add a record option or a setting", as test
 * settings.recipe takes it: one row of the settings table. Here it comes through the table's
 * SST_SETTINGS_EXTRA (compiled into recipe_prog with -include) so that the product stays
 * without it; in the product it is a line of SST_SETTINGS in src/trace/sst_settings.h.
 */
#define SST_SETTINGS_EXTRA(X)                                                                      \
    X(RECIPE_KNOB, "recipe-knob", 0, "N", SST_T_CHOICE, "low|high|1-9", "5", NULL, SST_S_COL_ENV,  \
      "how hard the recipe's test turns its knob")
