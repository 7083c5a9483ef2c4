# Layers that the build enforces (docs/architecture.md). Every folder of the source tree is a
# layer; a target compiled for a layer sees only the layers listed for it below, through an
# include root of its own in the build tree (build/layers/<layer>/) that holds links to those
# folders and nothing else. A file that includes a layer it may not see fails to compile with
# "No such file or directory"; tests/layers checks that it does.
#
#   costmodel <- schema <- {import, calibrate};  schema <- process <- sim <- plan
#   {plan, calibrate} <- present <- app <- validate <- cli;  import <- app
#   schema <- clikit <- {cli, trainer};  schema <- trainer
set(VITSIM_LAYER_costmodel costmodel)
set(VITSIM_LAYER_schema costmodel schema)
set(VITSIM_LAYER_process costmodel schema process)
set(VITSIM_LAYER_import costmodel schema import)
set(VITSIM_LAYER_sim costmodel schema process sim)
set(VITSIM_LAYER_plan costmodel schema process sim plan)
set(VITSIM_LAYER_calibrate costmodel schema calibrate)
set(VITSIM_LAYER_present costmodel schema process sim plan calibrate present)
set(VITSIM_LAYER_app costmodel schema process import sim plan calibrate present app)
set(VITSIM_LAYER_validate costmodel schema process import sim plan calibrate present app validate)
set(VITSIM_LAYER_clikit costmodel schema clikit)
set(VITSIM_LAYER_cli
    costmodel schema process import sim plan calibrate present app validate clikit cli)
set(VITSIM_LAYER_trainer costmodel schema clikit trainer)

# The include root of `layer`: build/layers/<layer>/<folder> -> <source>/<folder> for each
# folder the layer may include. Rebuilt at every configure, so a layer that loses a folder loses
# its link.
function(vitsim_layer_root layer out_var)
  if(NOT DEFINED VITSIM_LAYER_${layer})
    message(FATAL_ERROR "vitsim: unknown layer '${layer}' (see cmake/VitsimLayers.cmake)")
  endif()
  set(root ${CMAKE_BINARY_DIR}/layers/${layer})
  get_property(made GLOBAL PROPERTY VITSIM_LAYER_ROOT_MADE_${layer})
  if(NOT made)
    file(REMOVE_RECURSE ${root})
    file(MAKE_DIRECTORY ${root})
    foreach(folder IN LISTS VITSIM_LAYER_${layer})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${folder} SYMBOLIC)
    endforeach()
    set_property(GLOBAL PROPERTY VITSIM_LAYER_ROOT_MADE_${layer} TRUE)
  endif()
  set(${out_var} ${root} PARENT_SCOPE)
endfunction()

# Compiles `target` as part of `layer`: its include path is the layer's root, never the source
# tree. PRIVATE, so no target inherits another's view through target_link_libraries.
function(vitsim_layer target layer)
  vitsim_layer_root(${layer} root)
  target_include_directories(${target} PRIVATE ${root})
endfunction()
